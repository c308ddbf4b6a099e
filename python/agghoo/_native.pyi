# Type stubs of the compiled module agghoo._native (crates/agghoo-py), written by hand and checked
# against the module by mypy's stubtest (python/tests/test_stub.py says how to update them).
from os import PathLike
from typing import Any, Optional, Sequence, TypedDict, final

import numpy as np
import numpy.typing as npt

__all__ = [
    "Model",
    "Job",
    "treecv_chunks",
    "treecv_feed",
    "treecv_schedule",
    "treecv_subtree",
    "treecv_assemble",
    "select",
    "procedure_info",
    "procedure_splits",
    "procedure_choice",
    "splits",
    "estimate",
    "compare",
    "family_spec_json",
    "plan_spec_json",
    "loss_spec_json",
    "loss_info",
    "loss_risk",
    "default_plan",
    "treecv",
    "select_features",
    "version",
    "read_text",
    "DEFAULT_NA_VALUES",
    "study",
    "argmin",
    "one_standard_error",
    "risk_curve",
    "aggregate",
    "set_limits",
    "check_grid_points",
    "_panic_for_tests",
    "path_outputs",
    "families",
    "integer_axes",
    "learner_settings",
    "missing_policies",
    "plan_n_splits",
    "names",
    "compare_paired",
]

#: The strings read as missing values in text columns by default.
DEFAULT_NA_VALUES: list[str]

# Text (categorical) columns: (column position, one cell per row, None for a missing cell).
_TextColumns = Sequence[tuple[int, Sequence[Optional[str]]]]
_Indices = npt.NDArray[np.uintp]
# The caller's folds: (train, validation) row indices per split.
_Folds = Sequence[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]]

def version() -> str: ...
# What a call passes besides X, y and its spec (keys left out take their defaults).
class _CallNames(TypedDict):
    feature_names: Sequence[str]

class _CallData(_CallNames, total=False):
    class_names: Optional[Sequence[str]]
    missing: Optional[str]
    categorical: _TextColumns
    na_values: Optional[Sequence[str]]
    groups: Optional[Sequence[int]]
    sample_weight: Optional[Sequence[float]]
    splits: Optional[_Folds]
    risks: Optional[Sequence[Sequence[float]]]

# How a call runs.
class _RunOptions(TypedDict):
    threads: Optional[int]
    job: bool
    verbose: int

def select(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], spec: str, data: _CallData, run: Optional[_RunOptions] = None
) -> tuple[Model, str] | Job: ...
def estimate(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], spec: str, data: _CallData, run: Optional[_RunOptions] = None
) -> str | Job: ...
def compare(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], spec: str, data: _CallData, run: Optional[_RunOptions] = None
) -> str | Job: ...
def family_spec_json(
    family: str, grid: Optional[str] = None, params: Sequence[tuple[str, str]] = ..., axes: Sequence[tuple[str, str]] = ...
) -> str: ...
def plan_spec_json(text: str, stratify: Optional[bool] = None, classification: bool = False) -> str: ...
def plan_n_splits(text: str) -> Optional[int]: ...
def loss_spec_json(name: str) -> str: ...
def loss_info(name: Optional[str], classification: bool) -> tuple[str, Optional[str]]: ...
def loss_risk(
    loss: str,
    y: Sequence[float],
    predicted: Sequence[float],
    n_classes: int = 0,
    proba: Optional[Sequence[float]] = None,
    decision: Optional[Sequence[float]] = None,
    sample_weight: Optional[Sequence[float]] = None,
) -> float: ...
def default_plan(method: str, n_splits: int, tau: float) -> str: ...
def select_features(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], spec: str, data: _CallData, run: Optional[_RunOptions] = None
) -> str | Job: ...
def treecv(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    feature_names: Sequence[str],
    class_names: Optional[Sequence[str]],
    spec: str,
    threads: Optional[int] = None,
) -> str: ...
def treecv_chunks(n_rows: int, folds: int, shuffle: bool = True, seed: int = 0) -> list[_Indices]: ...
def treecv_schedule(owner: Sequence[int]) -> list[tuple[str, Optional[int], int, int, int]]: ...
def treecv_feed(
    spec: str,
    model: Optional[str],
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    data: _CallData,
    threads: Optional[int] = None,
) -> str: ...
def treecv_subtree(
    spec: str,
    model: Optional[str],
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    data: _CallData,
    sizes: Sequence[int],
    threads: Optional[int] = None,
) -> tuple[list[float], int]: ...
def treecv_assemble(spec: str, sums: Sequence[float], sizes: Sequence[int], n_classes: int, wall_seconds: float) -> str: ...
def splits(
    plan: str,
    n_rows: int,
    seed: int = 0,
    stratify: Optional[bool] = None,
    strata: Optional[Sequence[int]] = None,
    groups: Optional[Sequence[int]] = None,
) -> list[tuple[_Indices, _Indices]]: ...
def read_text(
    name: str, cells: Sequence[Optional[str]], na_values: Optional[Sequence[str]] = None, detected: bool = False
) -> tuple[list[Optional[str]], Optional[tuple[str, list[str]]]]: ...
def argmin(risks: Sequence[float], tie: str = "first") -> int: ...
def one_standard_error(
    mean: Sequence[float], standard_error: Sequence[float], tie: str = "first", larger_is_simpler: bool = False
) -> int: ...
def risk_curve(risks: Sequence[Sequence[float]], sizes: Sequence[int]) -> tuple[list[float], list[float]]: ...
def procedure_info(method: str) -> dict[str, bool]: ...
def procedure_splits(
    method: str, n_rows: int, folds: _Folds, seed: int = 0, inner_tau: Optional[float] = None, candidates_only: bool = False
) -> tuple[list[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]], bool]: ...
def procedure_choice(
    method: str,
    risks: Sequence[Sequence[float]],
    sizes: Sequence[int],
    classification: bool,
    tie: str = "first",
    one_se: bool = False,
) -> dict[str, Any]: ...
def aggregate(
    how: str,
    member_risks: Sequence[Optional[float]],
    values: Optional[Sequence[Sequence[float]]] = None,
    labels: Optional[Sequence[Sequence[int]]] = None,
    n_classes: int = 0,
    proba: Optional[Sequence[Sequence[float]]] = None,
    decision: Optional[Sequence[Sequence[float]]] = None,
) -> tuple[list[float], Optional[list[float]]]: ...
def families() -> dict[str, dict[str, bool]]: ...
def missing_policies() -> list[tuple[str, bool]]: ...
def learner_settings() -> dict[str, list[str]]: ...
def integer_axes() -> list[str]: ...
def names() -> list[tuple[str, list[str]]]: ...
def compare_paired(a: str, a_risks: Sequence[float], b: str, b_risks: Sequence[float], n_rows: int, folds: _Folds) -> str: ...
def path_outputs(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], spec: str, data: _CallData, run: Optional[_RunOptions] = None
) -> tuple[str, list[tuple[npt.NDArray[Any], Optional[npt.NDArray[np.float64]], Optional[npt.NDArray[np.float64]]]]]: ...

@final
class Model:
    @staticmethod
    def from_json(text: str) -> Model: ...
    @staticmethod
    def load(path: str | PathLike[str]) -> Model: ...
    def to_json(self) -> str: ...
    def save(self, path: str | PathLike[str]) -> None: ...
    def predict(
        self, x: npt.NDArray[np.float64], categorical: _TextColumns = ...
    ) -> npt.NDArray[np.float64] | npt.NDArray[np.int64]: ...
    def predict_proba(self, x: npt.NDArray[np.float64], categorical: _TextColumns = ...) -> Optional[npt.NDArray[np.float64]]: ...
    def decision_function(self, x: npt.NDArray[np.float64], categorical: _TextColumns = ...) -> Optional[npt.NDArray[np.float64]]: ...
    @property
    def feature_names(self) -> list[str]: ...
    @property
    def class_names(self) -> list[str]: ...
    @property
    def categorical(self) -> list[str]: ...
    @property
    def na_values(self) -> Optional[list[str]]: ...
    @property
    def family(self) -> str: ...
    @property
    def method(self) -> str: ...
    @property
    def aggregation(self) -> str: ...
    @property
    def member_values(self) -> list[float]: ...

@final
class Job:
    """A unit-wise computation shipped to Dask workers (agghoo.dask)."""

    @staticmethod
    def from_json(text: str) -> Job: ...
    def to_json(self) -> str: ...
    @property
    def n_units(self) -> int: ...
    @property
    def kind(self) -> str: ...
    def evaluate(
        self, x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], units: Sequence[int], threads: Optional[int] = None
    ) -> list[bytes]: ...
    def assemble(
        self, x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], outcomes: Sequence[bytes], threads: Optional[int] = None
    ) -> tuple[Model, str] | str: ...
    def outcome_json(self, outcome: bytes) -> str: ...
    def __dask_tokenize__(self) -> str: ...

def study(data_dir: str | PathLike[str], spec: str, threads: Optional[int] = None) -> str: ...
def set_limits(max_memory: Optional[str] = None, counts: Sequence[tuple[str, str]] = ...) -> list[tuple[str, int]]: ...
def check_grid_points(n: int, what: str) -> None: ...
def _panic_for_tests(message: str) -> None: ...
