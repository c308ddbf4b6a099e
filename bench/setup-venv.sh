#!/usr/bin/env bash
# Installs the Python peers (scikit-learn, numba, mlxtend) into ./.venv for side-by-side
# benchmarks and for regenerating golden reference values. The Rust build and tests never need it.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/pip install --quiet --upgrade pip
.venv/bin/pip install --quiet "scikit-learn>=1.5" "numpy>=1.26" "numba>=0.60" "mlxtend>=0.23" "scipy>=1.11"
.venv/bin/python -c "import sklearn, numba, mlxtend; print('sklearn', sklearn.__version__, 'numba', numba.__version__, 'mlxtend', mlxtend.__version__)"
