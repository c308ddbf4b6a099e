"""Exceptions raised by agghoo, one class per kind of failure.

Every error of the library arrives as a subclass of :class:`AgghooError`, itself a
``ValueError`` (what scikit-learn expects from ``fit`` on bad input). The message is the
library's: it names the parameter, the row and column, the split or the grid point at fault,
followed by its causes (``split 0: grid point 3: fit failed: …``); each library cause is
also chained as ``__cause__``.
All classes pickle, so errors raised in worker processes travel back intact.
"""

__all__ = [
    "AgghooError",
    "DataError",
    "ParameterError",
    "FitError",
    "NumericalError",
    "CorruptFileError",
    "ResourceLimitError",
    "InternalError",
    "AgghooIOError",
]


class AgghooError(ValueError):
    """Base class of every agghoo error.

    Examples
    --------
    >>> import agghoo
    >>> try:
    ...     agghoo.estimate_risk([[0.0], [1.0], [2.0], [3.0]], [0, 1, 0, 1], family="nope", value=1)
    ... except agghoo.AgghooError as e:
    ...     print(type(e).__name__)
    ParameterError
    """


class DataError(AgghooError):
    """The data are unusable as given: missing or non-finite values, too few rows, a constant
    target, unseen labels, columns or a task that do not fit the model or the loss."""


class ParameterError(AgghooError):
    """A parameter, a splits file or a requested capability is invalid (a grid, a plan, a method)."""


class FitError(AgghooError):
    """A fit failed on one split or grid point (the message names which)."""


class NumericalError(AgghooError):
    """A computation failed because of the data's numbers (a singular system, no convergence, a
    non-finite risk)."""


class CorruptFileError(AgghooError):
    """A model or splits file is inconsistent or not agghoo's format."""


class ResourceLimitError(AgghooError):
    """A size was refused before any work started; the message gives the estimate and the
    keyword of :func:`agghoo.set_limits` that raises the limit."""


class InternalError(AgghooError):
    """A bug in agghoo; please report it with the message and the call that raised it.

    A broken internal invariant, or a panic inside the compiled code (caught at its edge, so that
    it arrives as this ``Exception`` rather than as a ``BaseException`` that ``except Exception``
    would let through)."""


class AgghooIOError(AgghooError, OSError):
    """A file could not be read or written."""
