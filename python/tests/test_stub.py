"""The compiled module's stub (python/agghoo/_native.pyi) matches the module: mypy's stubtest is clean."""

import inspect
import os
import subprocess
import sys

import pytest

HOW_TO_FIX = """\
python/agghoo/_native.pyi does not match the compiled module agghoo._native (mypy's stubtest above).
To fix it, after rebuilding the extension (./test.sh, or `maturin develop --release` in .venv):
  1. list the differences:      .venv/bin/python -m mypy.stubtest agghoo._native --concise
  2. print the compiled module's signatures (names, defaults, order), listed below too:
                                .venv/bin/python python/tests/test_stub.py
  3. edit python/agghoo/_native.pyi: add, remove or reorder what step 1 names (a new name goes into
     its __all__ too), typing each parameter as its `#[pyo3(signature = ...)]` and Rust type in
     crates/agghoo-py/src say (Vec<T> -> Sequence[T] for arguments and list[T] for results,
     Option<T> -> Optional[T], PyReadonlyArray2<f64> -> npt.NDArray[np.float64]); repeat step 1
     until it prints nothing. (mypy's stubgen cannot generate it: it fails on pyo3's docstrings.)"""


def runtime_signatures():
    """The compiled module's functions and classes with their signatures, as stub skeleton lines."""
    from agghoo import _native

    lines = [f"__all__ = {list(_native.__all__)!r}"]
    for name in _native.__all__:
        value = getattr(_native, name)
        if isinstance(value, type):
            lines.append(f"class {name}:")
            for attribute, member in vars(value).items():
                if attribute.startswith("__") and attribute != "__dask_tokenize__":
                    continue
                if callable(member) or isinstance(member, staticmethod):
                    lines.append(f"    def {attribute}{inspect.signature(getattr(value, attribute))}: ...")
                else:
                    lines.append(f"    @property\n    def {attribute}(self): ...")
        elif callable(value):
            lines.append(f"def {name}{inspect.signature(value)}: ...")
        else:
            lines.append(f"{name}: {type(value).__name__}")
    return "\n".join(lines)


def test_stubtest_accepts_the_stub(tmp_path):
    if os.environ.get("AGGHOO_IN_TEST_SCRIPT"):
        import mypy.stubtest  # noqa: F401  (pinned in python/requirements-test.txt: a failure, not a skip)
    else:
        pytest.importorskip("mypy.stubtest")
    done = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "agghoo._native", "--concise"],
        capture_output=True,
        text=True,
        cwd=tmp_path,  # mypy's cache and any stray file go there, not into the repository
    )
    assert done.returncode == 0, f"{done.stdout}{done.stderr}\n{HOW_TO_FIX}\n\nThe compiled module now:\n{runtime_signatures()}"


if __name__ == "__main__":
    print(runtime_signatures())
