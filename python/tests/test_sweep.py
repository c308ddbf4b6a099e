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
    "stderr, code, problem",
    [
        ("agghoo: error: data.csv: No such file or directory (os error 2)", 1, None),
        ("agghoo: error: No such file or directory (os error 2)", 1, "an OS error that names no path"),
        ("agghoo: error: x.csv: Is a directory (os error 21): Is a directory (os error 21)", 1, "the OS error repeated"),
        ("thread 'main' panicked at src/main.rs:1:1", 101, "panic"),
        ("agghoo: error: one\nagghoo: error: two", 1, "not one `agghoo: error:` line"),
    ],
)
def test_the_sweep_detects_what_it_claims(tmp_path, stderr, code, problem):
    """A sweep that cannot fail is no test: a stand-in binary answering each way is judged as claimed."""
    fake = tmp_path / "agghoo"
    fake.write_text(f"#!/bin/sh\nprintf '%b\\n' \"{stderr}\" >&2\nexit {code}\n")
    fake.chmod(0o755)
    template = tmp_path / "template"
    template.mkdir()
    sweep._write_data(str(template))
    msg = sweep.run_cli_case(str(fake), str(template), "select", ["select", "--data", "data.csv", "--target", "y"])
    assert (msg is None) if problem is None else (msg is not None and problem in msg), msg
