"""The limits on sizes agghoo checks before allocating (the CLI's ``--max-memory`` and ``--limit``)."""

from __future__ import annotations

from typing import Any

from . import _native


def set_limits(max_memory: str | int | None = None, **counts: Any) -> dict[str, Any]:
    """Set the process-wide limits every agghoo call checks before allocating, and return the
    limits now in force as a dict.

    A request beyond a limit raises :class:`~agghoo.exceptions.ResourceLimitError` at once, with
    the estimate and the keyword to raise here. ``max_memory`` is a size such as ``"8G"``,
    ``"512M"`` or a number of bytes (default 8 GiB); ``counts`` are caps by kind:
    ``grid_points`` (100 000), ``splits`` (100 000, each plan), ``threads`` (1024), ``trees``
    (100 000), ``centres`` (100 000), ``repetitions`` (100 000), ``subset_evaluations``
    (2²⁰), ``levels`` (10 000 per categorical column) and ``libsvm_expansion`` (100). The limits
    hold in this process only (Dask workers and joblib's processes keep their own).

    Examples
    --------
    >>> import agghoo
    >>> agghoo.set_limits(grid_points=200_000)["grid_points"]
    200000
    >>> agghoo.set_limits(grid_points=100_000)["grid_points"]
    100000
    """
    size = None if max_memory is None else str(max_memory)
    pairs = [(key, str(value)) for key, value in counts.items()]
    return dict(_native.set_limits(size, pairs))


def get_limits() -> dict[str, Any]:
    """The limits in force, as a dict (see :func:`set_limits`).

    Examples
    --------
    >>> import agghoo
    >>> agghoo.get_limits()["threads"]
    1024
    """
    return dict(_native.set_limits(None, []))
