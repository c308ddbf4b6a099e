"""agghoo: honest, fast model selection — aggregated hold-out (Agghoo / Majhoo), cross-validation
and path-aware learner families, with scikit-learn's conventions and a Rust engine."""

from . import _native
from ._estimators import AgghooClassifier, AgghooRegressor, load_model
from ._functions import (
    Comparison,
    FeatureSelection,
    RiskEstimate,
    StudyResult,
    TreeCVResult,
    compare,
    estimate_risk,
    nested_cv,
    select_features,
    study,
    treecv,
)
from ._limits import get_limits, set_limits
from ._search import AgghooSearchCV
from ._selector import FeatureSelector
from .exceptions import AgghooError
from .model_selection import (
    AgghooSplitter,
    Bootstrap,
    HoldOut,
    LeaveOneOut,
    LeavePOut,
    MonteCarloSplit,
    RepeatedVFold,
    TimeSeriesSplit,
    VFold,
)

__version__ = _native.version()

#: The strings read as missing values in text columns by default: pandas' default NA strings
#: and ``?`` (plus ``na`` / ``nan`` in any case); ``na_values=["default", "-"]`` adds ``-``.
DEFAULT_NA_VALUES = tuple(_native.DEFAULT_NA_VALUES)

__all__ = [
    "AgghooClassifier",
    "AgghooRegressor",
    "AgghooSearchCV",
    "AgghooError",
    "AgghooSplitter",
    "Bootstrap",
    "DEFAULT_NA_VALUES",
    "HoldOut",
    "LeaveOneOut",
    "LeavePOut",
    "MonteCarloSplit",
    "RepeatedVFold",
    "TimeSeriesSplit",
    "VFold",
    "Comparison",
    "FeatureSelection",
    "FeatureSelector",
    "RiskEstimate",
    "StudyResult",
    "TreeCVResult",
    "compare",
    "nested_cv",
    "treecv",
    "estimate_risk",
    "select_features",
    "study",
    "load_model",
    "set_limits",
    "get_limits",
]
