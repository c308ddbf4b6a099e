"""The adversarial sweep (adversarial_sweep.py) at test size: a deterministic sample of bad values for
every CLI flag (four per flag) and every bad value for every keyword of the Python entry points, each
run in a child process under a memory cap and a time limit. `python python/tests/adversarial_sweep.py
--full` runs every CLI case."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import adversarial_sweep as sweep  # noqa: E402


def test_cli_sweep_has_no_panic_hang_memory_kill_or_stray_file(cli):
    binary = os.environ.get("AGGHOO_CLI") or __import__("shutil").which("agghoo")
    n, failures = sweep.sweep_cli(binary, full=False, log=lambda m: None)
    assert n > 500
    assert not failures, f"{len(failures)} of {n} CLI cases failed:\n" + "\n".join(failures)


def test_python_sweep_raises_only_meaningful_exceptions():
    n, failures = sweep.sweep_python(full=True, log=lambda m: None)
    assert n > 1000
    assert not failures, f"{len(failures)} of {n} Python cases failed:\n" + "\n".join(failures)


@pytest.mark.parametrize(
    "value, problem",
    [("/nonexistent/x.csv", None), ("", "an OS error that names no path")],
)
def test_the_sweep_detects_what_it_claims(cli, value, problem):
    """A sweep that cannot fail is no test: a file error naming its path passes, one naming none fails."""
    import tempfile

    binary = os.environ.get("AGGHOO_CLI") or __import__("shutil").which("agghoo")
    with tempfile.TemporaryDirectory() as template:
        sweep._write_data(template)
        msg = sweep.run_cli_case(binary, template, "select", ["select", "--data", value, "--target", "y"])
    assert (msg is None) if problem is None else (problem in msg), msg
