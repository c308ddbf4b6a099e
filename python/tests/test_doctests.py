"""The Examples of the package's docstrings run as doctests, and every public class and function has
them and annotations."""

import doctest
import importlib
import inspect
import os
import typing

import pytest

import agghoo

MODULES = [
    "agghoo._estimators",
    "agghoo._functions",
    "agghoo._limits",
    "agghoo._results",
    "agghoo._validation",
    "agghoo.dask",
    "agghoo.exceptions",
    "agghoo.model_selection",
    "agghoo._selector",
    "agghoo._search",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    if name == "agghoo.dask":
        pytest.importorskip("distributed")
    module = importlib.import_module(name)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    cwd = os.getcwd()
    os.chdir(root)  # the study's examples name data/study
    try:
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, raise_on_error=False)
    finally:
        os.chdir(cwd)
    assert result.attempted > 0 and result.failed == 0, result


def _public():
    for name in agghoo.__all__:
        obj = getattr(agghoo, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            yield name, obj


@pytest.mark.parametrize("name,obj", list(_public()))
def test_every_public_class_and_function_has_examples_and_annotations(name, obj):
    assert "Examples\n" in (obj.__doc__ or ""), f"{name}: no Examples section"
    if issubclass(obj, BaseException) if inspect.isclass(obj) else False:
        return
    function = obj.__init__ if inspect.isclass(obj) else obj
    function = inspect.unwrap(function)
    if function is object.__init__:
        return
    signature = inspect.signature(function)
    missing = [p.name for p in signature.parameters.values() if p.name != "self" and p.annotation is inspect.Parameter.empty]
    assert not missing, f"{name}: parameters without annotations: {missing}"
    assert signature.return_annotation is not inspect.Signature.empty, f"{name}: no return annotation"
    typing.get_type_hints(function)  # every annotation names something that exists
