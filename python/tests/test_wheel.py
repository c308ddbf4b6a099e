"""The built wheel: only the package inside, clean metadata, a platform tag its glibc symbols honour,
and it installs into a fresh virtualenv without Rust and runs the examples; the sdist holds sources only.

The wheel is the file named by AGGHOO_WHEEL: ./test.sh builds one from its release build (the
platform's own glibc tag) and ./build-wheels.sh its portable manylinux2014 wheels, then each runs
these tests on what it built. ./build-wheels.sh also sets AGGHOO_WHEEL_DEPS=registry: the fresh
virtualenv then gets the wheel's dependencies from the package registry, as a user's does.
"""

import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python" / "agghoo"


@pytest.fixture(scope="module")
def wheel():
    path = os.environ.get("AGGHOO_WHEEL")
    if not path:
        if os.environ.get("AGGHOO_IN_TEST_SCRIPT"):
            pytest.fail("AGGHOO_WHEEL is not set: ./test.sh should have built the wheel")
        pytest.skip("no wheel to test (set AGGHOO_WHEEL to a built wheel; ./test.sh and ./build-wheels.sh do)")
    assert os.path.isfile(path), f"AGGHOO_WHEEL={path!r} does not exist"
    return pathlib.Path(path)


def _metadata(wheel):
    with zipfile.ZipFile(wheel) as z:
        name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        return z.read(name).decode()


def test_wheel_holds_the_package_and_nothing_else(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
    licences = sorted(n.split("/", 1)[1] for n in names if n.split("/")[0].endswith(".dist-info") and "/licenses/" in n)
    assert licences == ["licenses/LICENSE-APACHE", "licenses/LICENSE-MIT"], licences
    package = sorted(n for n in names if not n.split("/")[0].endswith(".dist-info"))
    sources = sorted(f"agghoo/{p.name}" for p in PACKAGE.iterdir() if p.suffix in (".py", ".pyi") or p.name == "py.typed")
    assert package == sorted([*sources, "agghoo/_native.abi3.so"]), "stray or missing files in the wheel"


def test_wheel_metadata_has_the_readme_licence_classifiers_and_extras(wheel):
    text = _metadata(wheel)
    head, _, body = text.partition("\n\n")
    assert "Description-Content-Type: text/markdown" in head
    assert body.startswith("# agghoo") and "## Python" in body
    assert "License-Expression: MIT OR Apache-2.0" in head
    assert "License-File: LICENSE-MIT" in head and "License-File: LICENSE-APACHE" in head
    assert "Classifier: Programming Language :: Rust" in head and "Classifier: Typing :: Typed" in head
    assert "Requires-Python: >=3.10" in head
    for extra in ("plot", "dask", "pandas"):
        assert f"Provides-Extra: {extra}" in head
    assert re.search(r"Requires-Dist: matplotlib.*; extra == .plot.", head)


def _glibc(version):
    return tuple(int(p) for p in version.split("."))


def test_wheel_tag_is_abi3_and_honoured_by_its_glibc_symbols(wheel):
    with zipfile.ZipFile(wheel) as z:
        info = next(n for n in z.namelist() if n.endswith(".dist-info/WHEEL"))
        tags = re.findall(r"^Tag: (\S+)$", z.read(info).decode(), re.M)
        library = z.read("agghoo/_native.abi3.so")
    assert tags and all(t.startswith("cp310-abi3-") for t in tags), tags
    # The glibc versions the extension needs are named in its version-needs table (.dynstr).
    needed = max((_glibc(v.decode()) for v in re.findall(rb"GLIBC_(\d+\.\d+(?:\.\d+)?)\x00", library)), default=(2, 0))
    for tag in tags:
        platform = tag.split("-", 2)[2]
        m = re.fullmatch(r"manylinux_(\d+)_(\d+)_(\w+)", platform) or re.fullmatch(r"manylinux2014_(\w+)", platform)
        if m is None:
            continue
        promised = (2, 17) if platform.startswith("manylinux2014") else (int(m[1]), int(m[2]))
        assert needed <= promised, f"{tag}: the extension needs GLIBC_{'.'.join(map(str, needed))}"
    if "manylinux2014" in wheel.name:
        assert needed <= (2, 17)


def _without_rust(environ):
    """The environment with every PATH entry that holds cargo or rustc removed (and Cargo's variables)."""
    env = {k: v for k, v in environ.items() if not k.startswith(("CARGO", "RUSTUP", "VIRTUAL_ENV", "PYTHON"))}
    keep = [d for d in environ.get("PATH", "").split(os.pathsep) if d and not any(os.path.exists(os.path.join(d, t)) for t in ("cargo", "rustc"))]
    env["PATH"] = os.pathsep.join(keep)
    assert shutil.which("cargo", path=env["PATH"]) is None and shutil.which("rustc", path=env["PATH"]) is None
    return env


RUN_EXAMPLES = r"""
import os, pathlib, runpy, sys
import matplotlib
matplotlib.use("Agg")
import agghoo
here = pathlib.Path(agghoo.__file__).resolve()
assert pathlib.Path(sys.prefix).resolve() in here.parents, f"agghoo imported from {here}, not the fresh virtualenv"
root = pathlib.Path(sys.argv[1])
for script in sorted((root / "python" / "examples").glob("*.py")):
    if script.name == "dask_cluster.py":
        continue  # needs the dask extra and a local cluster: run by the main suite's test_examples
    print("example", script.name, flush=True)
    runpy.run_path(str(script), run_name="__main__")
readme = (root / "README.md").read_text()
blocks = [b for b in readme.split("```python\n")[1:]]
ran = 0
for block in blocks:
    code = block.split("```", 1)[0]
    if "dask" in code:
        continue
    print("README block", ran, flush=True)
    exec(compile(code, "README.md", "exec"), {"__name__": "__main__"})
    ran += 1
assert ran >= 1, "no README Python example ran"
from sklearn.datasets import load_breast_cancer
X, y = load_breast_cancer(return_X_y=True)
display = agghoo.AgghooClassifier(family="knn", grid=range(1, 20, 2), n_splits=3).fit(X, y).plot()
display.figure_.savefig("curve.png")
print("agghoo", agghoo.__version__, "from", here.parent)
"""


def test_wheel_installs_and_runs_the_examples_without_rust(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    env = _without_rust(os.environ)
    pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    if os.environ.get("AGGHOO_WHEEL_DEPS") == "registry":
        # As a user installs it: the dependencies from the package registry, at the versions the
        # test suite pins (./build-wheels.sh).
        pip += ["-c", str(ROOT / "python" / "requirements-test.txt")]
    else:
        # The dependencies are borrowed, read-only, from the test virtualenv through a .pth file
        # (after the fresh site-packages, so the wheel's agghoo wins); nothing is downloaded and
        # `pip check` then verifies that they satisfy the wheel's requirements. This keeps
        # ./test.sh quick: resolving them against the registry takes minutes on a loaded machine.
        site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True, check=True)
        pathlib.Path(site.stdout.strip(), "test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
        pip += ["--no-index", "--no-deps", "--force-reinstall"]
    install = subprocess.run([*pip, f"{wheel}[plot,pandas]"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert install.returncode == 0, install.stdout + install.stderr
    check = subprocess.run([python, "-m", "pip", "check", "--disable-pip-version-check"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    (tmp_path / "run_examples.py").write_text(RUN_EXAMPLES)
    done = subprocess.run([python, "run_examples.py", str(ROOT)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "agghoo" in done.stdout and (tmp_path / "curve.png").stat().st_size > 0


def _maturin():
    """The test virtualenv's maturin (with cargo on PATH), or the test is skipped (failed under ./test.sh)."""
    maturin = shutil.which("maturin", path=os.path.dirname(sys.executable))
    if maturin is None or shutil.which("cargo") is None:
        if os.environ.get("AGGHOO_IN_TEST_SCRIPT"):
            pytest.fail("maturin (python/requirements-test.txt) or cargo is missing")
        pytest.skip("needs maturin and cargo")
    return maturin


@pytest.fixture(scope="module")
def sdist(tmp_path_factory):
    """The sdist ``maturin sdist`` makes of the checkout."""
    out = tmp_path_factory.mktemp("sdist")
    done = subprocess.run([_maturin(), "sdist", "--out", str(out)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    (path,) = out.glob("agghoo-*.tar.gz")
    return path


def test_sdist_holds_the_sources_and_no_build_products(sdist):
    with tarfile.open(sdist) as t:
        names = [n.split("/", 1)[1] for n in t.getnames() if "/" in n]
    for needed in ("pyproject.toml", "Cargo.toml", "Cargo.lock", "README.md", "LICENSE-MIT", "LICENSE-APACHE", "crates/agghoo-py/src/lib.rs", "crates/agghoo/src/lib.rs", "python/agghoo/__init__.py", "python/agghoo/_native.pyi"):
        assert needed in names, f"{needed} missing from the sdist"
    stray = [n for n in names if "__pycache__" in n or n.endswith((".pyc", ".so", ".gitignore")) or n.startswith(("target/", ".venv/"))]
    assert not stray, f"stray files in the sdist: {stray}"


SDIST_SMOKE = r"""
import pathlib, sys
import numpy as np
import agghoo
here = pathlib.Path(agghoo.__file__).resolve()
assert pathlib.Path(sys.prefix).resolve() in here.parents, f"agghoo imported from {here}, not the fresh virtualenv"
rng = np.random.default_rng(0)
X = rng.normal(size=(80, 3))
y = (X[:, 0] > 0).astype(int)
clf = agghoo.AgghooClassifier(family="knn", grid=[1, 3, 5], n_splits=3).fit(X, y)
assert clf.predict(X).shape == (80,)
print("agghoo", agghoo.__version__, "built from the sdist")
"""


@pytest.mark.slow
def test_sdist_builds_and_installs_with_rust(sdist, tmp_path):
    # As a user without a matching wheel installs it: pip builds the sdist with Rust (maturin's
    # build backend) in a fresh virtualenv. The build backend and the dependencies are borrowed,
    # read-only, from the test virtualenv (nothing is downloaded), and Cargo builds in the
    # project's target/ so the compiled registry dependencies are reused.
    maturin = _maturin()
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True, check=True)
    pathlib.Path(site.stdout.strip(), "test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    env["PATH"] = os.pathsep.join([os.path.dirname(maturin), env.get("PATH", "")])
    env["CARGO_TARGET_DIR"] = str(ROOT / "target")
    pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-index", "--no-deps", "--no-build-isolation"]
    install = subprocess.run([*pip, str(sdist)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert install.returncode == 0, install.stdout + install.stderr
    (tmp_path / "smoke.py").write_text(SDIST_SMOKE)
    done = subprocess.run([python, "smoke.py"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "built from the sdist" in done.stdout
