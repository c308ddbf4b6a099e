#!/usr/bin/env bash
# Builds the Python package for distribution into dist/: one abi3 wheel per architecture (CPython
# 3.10 and later) tagged manylinux2014 — it installs on any Linux with glibc 2.17 or later (RHEL /
# CentOS 7+, Debian 9+, Ubuntu 18.04+) — and the sdist; then tests them (python/tests/test_wheel.py:
# contents, metadata, the tag against the extension's glibc symbols, and for the host's
# architecture an install into a fresh virtualenv without Rust that runs the examples).
#
#   ./build-wheels.sh            # x86_64 wheel + sdist
#   ./build-wheels.sh aarch64    # aarch64 wheel + sdist (needs: rustup target add aarch64-unknown-linux-gnu)
#   ./build-wheels.sh all        # both
#
# Needs Rust and Python 3 (with venv); the linker is zig, from the PyPI package `ziglang` (pinned in
# python/requirements-build.txt), installed into ./.venv with maturin. The wheels are built in
# target/<triple>/release, apart from ./test.sh's build in target/release: the first run compiles
# every dependency once more (a few minutes on 2 cores), later runs only what changed.
set -euo pipefail
cd "$(dirname "$0")"
case "${1:-x86_64}" in
x86_64) arches=(x86_64) ;;
aarch64) arches=(aarch64) ;;
all) arches=(x86_64 aarch64) ;;
*) echo "usage: $0 [x86_64|aarch64|all]" >&2; exit 2 ;;
esac
command -v cargo >/dev/null || { echo "cargo not found: install Rust (rustup) first" >&2; exit 1; }
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r python/requirements-build.txt
export VIRTUAL_ENV="$PWD/.venv" PATH="$PWD/.venv/bin:$PATH"
host="$(uname -m)"
rm -rf dist
for arch in "${arches[@]}"; do
    triple="$arch-unknown-linux-gnu"
    if command -v rustup >/dev/null && ! rustup target list --installed | grep -qx "$triple"; then
        echo "build-wheels.sh: Rust's standard library for $triple is not installed: run 'rustup target add $triple' first" >&2
        exit 1
    fi
    echo "==> wheel for $triple (manylinux2014, zig)" >&2
    maturin build --release --zig --compatibility manylinux2014 --target "$triple" --interpreter .venv/bin/python --out dist
done
echo "==> sdist" >&2
maturin sdist --out dist
for wheel in dist/*.whl; do
    echo "==> checking $wheel" >&2
    only=()
    case "$wheel" in *"_$host.whl") ;; *) only=(-k "not installs") ;; esac # a foreign wheel cannot be run here
    AGGHOO_WHEEL="$PWD/$wheel" AGGHOO_WHEEL_DEPS=registry .venv/bin/python -m pytest -q -p no:cacheprovider python/tests/test_wheel.py "${only[@]}"
done
ls -l dist
