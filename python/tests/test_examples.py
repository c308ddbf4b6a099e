"""Every example script runs."""

import pathlib
import runpy

import pytest

EXAMPLES = sorted((pathlib.Path(__file__).parents[1] / "examples").glob("*.py"))


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(script):
    runpy.run_path(str(script), run_name="__main__")


def test_there_are_examples():
    assert len(EXAMPLES) >= 3
