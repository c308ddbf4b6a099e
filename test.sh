#!/usr/bin/env bash
# Runs every test of agghoo: the Rust workspace, then the Python package.
# Everything is built in the release profile, so this script reuses the build of the README's main
# job (`cargo run --release`) and the Python extension reuses the test build's dependencies: one
# build, not two. Creates or reuses ./.venv, installs the pinned test dependencies
# (python/requirements-test.txt) from the package registry, builds the package's wheel with
# `maturin build --release` into target/test-wheel and installs that wheel into .venv (so the
# tests import what users install, not the source folder), then runs pytest against the release
# `agghoo` binary; python/tests/test_wheel.py also installs the wheel into a fresh virtualenv with
# no Rust on PATH and runs the examples there. (This wheel carries the build machine's glibc tag;
# ./build-wheels.sh builds the portable manylinux2014 ones.) Needs Rust and Python 3 with `venv`.
# .ci/run calls exactly this script. Python source edits need this script (or `maturin develop`)
# again before a bare `pytest` sees them.
set -euo pipefail
cd "$(dirname "$0")"
stage=""
begin() { stage="$1"; echo "==> $stage" >&2; }
trap 'echo "test.sh: failed during: $stage" >&2' ERR

begin "Rust tests (cargo test --workspace --release)"
command -v cargo >/dev/null || { echo "cargo not found: install Rust (rustup) first" >&2; exit 1; }
cargo test --workspace --release

begin "Python virtualenv (.venv) and pinned test dependencies"
command -v python3 >/dev/null || { echo "python3 not found: install Python 3 (with venv) first" >&2; exit 1; }
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r python/requirements-test.txt

begin "Python wheel (maturin build --release) installed into .venv"
rm -rf target/test-wheel
VIRTUAL_ENV="$PWD/.venv" PATH="$PWD/.venv/bin:$PATH" .venv/bin/maturin build --release --quiet --interpreter .venv/bin/python --out target/test-wheel
wheel="$(echo target/test-wheel/agghoo-*.whl)"
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps --force-reinstall "$wheel"

begin "Python tests (pytest python/tests)"
AGGHOO_CLI="$PWD/target/release/agghoo" AGGHOO_WHEEL="$PWD/$wheel" AGGHOO_IN_TEST_SCRIPT=1 .venv/bin/python -m pytest python/tests -q
echo "test.sh: all Rust and Python tests passed" >&2
