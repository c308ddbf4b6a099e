"""Exceptions raised by agghoo, one class per kind of failure.

Every error of the library arrives as a subclass of :class:`AgghooError`, itself a
``ValueError`` (what scikit-learn expects from ``fit`` on bad input). The message is the
library's: it names the parameter, the row and column, the split or the grid point at fault.
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
    """Base class of every agghoo error."""


class DataError(AgghooError):
    """The data cannot be used: missing or non-finite values, too few rows, unseen labels,
    columns that do not match the model."""


class ParameterError(AgghooError):
    """A parameter broke its rule (a grid, a plan, a loss that does not apply to the task)."""


class FitError(AgghooError):
    """A fit failed on one split or grid point (the message names which)."""


class NumericalError(AgghooError):
    """A numerical failure that is a property of the data (for example a singular system)."""


class CorruptFileError(AgghooError):
    """A model or splits file is inconsistent or not agghoo's format."""


class ResourceLimitError(AgghooError):
    """A size was refused before any work started; the message gives the estimate and how to
    raise the limit."""


class InternalError(AgghooError):
    """A broken invariant inside agghoo: a bug, please report it with the message."""


class AgghooIOError(AgghooError, OSError):
    """A file could not be read or written."""
