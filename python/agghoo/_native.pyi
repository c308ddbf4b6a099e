# Type stubs of the compiled module agghoo._native (hand-written).
from os import PathLike
from typing import Any, Optional, Sequence

import numpy as np
import numpy.typing as npt

def version() -> str: ...
def select(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    feature_names: Sequence[str],
    class_names: Optional[Sequence[str]],
    family: str,
    grid: Optional[str],
    params: Sequence[tuple[str, str]],
    method: str,
    plan: str,
    stratify: Optional[bool] = None,
    loss: Optional[str] = None,
    tie: str = "first",
    aggregation: Optional[str] = None,
    one_se: bool = False,
    standardize: bool = False,
    inner_tau: Optional[float] = None,
    seed: int = 0,
    threads: Optional[int] = None,
) -> tuple[Model, str]: ...
def splits(
    plan: str,
    n_rows: int,
    seed: int = 0,
    stratify: Optional[bool] = None,
    strata: Optional[Sequence[int]] = None,
    groups: Optional[Sequence[int]] = None,
) -> list[tuple[npt.NDArray[np.uintp], npt.NDArray[np.uintp]]]: ...
def path_outputs(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    feature_names: Sequence[str],
    class_names: Optional[Sequence[str]],
    family: str,
    grid: Optional[str],
    params: Sequence[tuple[str, str]],
    splits: Sequence[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]],
    standardize: bool = False,
    threads: Optional[int] = None,
    categorical: Sequence[tuple[int, Sequence[Optional[str]]]] = ...,
    missing_category: str = "level",
    axes: Sequence[tuple[str, str]] = ...,
) -> tuple[str, list[tuple[npt.NDArray[Any], Optional[npt.NDArray[np.float64]], Optional[npt.NDArray[np.float64]]]]]: ...

class Model:
    @staticmethod
    def from_json(text: str) -> Model: ...
    @staticmethod
    def load(path: str | PathLike[str]) -> Model: ...
    def to_json(self) -> str: ...
    def save(self, path: str | PathLike[str]) -> None: ...
    def predict(self, x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64] | npt.NDArray[np.int64]: ...
    def predict_proba(self, x: npt.NDArray[np.float64]) -> Optional[npt.NDArray[np.float64]]: ...
    def decision_function(self, x: npt.NDArray[np.float64]) -> Optional[npt.NDArray[np.float64]]: ...
    @property
    def feature_names(self) -> list[str]: ...
    @property
    def class_names(self) -> list[str]: ...
    @property
    def member_values(self) -> list[float]: ...
def study(
    data_dir: str,
    quick: bool = False,
    sets: Optional[Sequence[str]] = None,
    families: Optional[Sequence[str]] = None,
    reps: Optional[int] = None,
    seed: Optional[int] = None,
    max_train: Optional[int] = None,
    max_test: Optional[int] = None,
    forest_trees: Optional[int] = None,
    alpha: Optional[float] = None,
    threads: Optional[int] = None,
) -> str: ...
def set_limits(max_memory: Optional[str] = None, counts: list[tuple[str, str]] = ...) -> list[tuple[str, int]]: ...
def check_grid_points(n: int, what: str) -> None: ...
def _panic_for_tests(message: str) -> None: ...
