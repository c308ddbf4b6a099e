#!/usr/bin/env bash
# Runs every test of agghoo: the Rust workspace, then the Python package.
# Everything is built in the release profile, so this script reuses the build of the README's main
# job (`cargo run --release`) and the Python extension reuses the test build's dependencies: one
# build, not two. Creates or reuses ./.venv, installs the pinned test dependencies
# (python/requirements-test.txt) from the package registry, builds the extension into it with
# `maturin develop --release`, then runs pytest against the release `agghoo` binary. Needs Rust and
# Python 3 with `venv`. .ci/run calls exactly this script.
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

begin "Python extension (maturin develop --release)"
VIRTUAL_ENV="$PWD/.venv" PATH="$PWD/.venv/bin:$PATH" .venv/bin/maturin develop --release --quiet

begin "Python tests (pytest python/tests)"
AGGHOO_CLI="$PWD/target/release/agghoo" AGGHOO_IN_TEST_SCRIPT=1 .venv/bin/python -m pytest python/tests -q
echo "test.sh: all Rust and Python tests passed" >&2
