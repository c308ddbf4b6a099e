"""The adversarial sweep: bad values for every flag of the `agghoo` CLI and every keyword of the Python
entry points, each run isolated in a child process under a memory cap and a time limit.

A case passes when the run either succeeds or fails the way the guarantees promise:
- CLI: exit 0, or exit 1 / 2 with one `agghoo: error: …` line on stderr (warning lines allowed before it);
  no panic, no signal, no time-out, no memory kill; a write error names its path; nothing is written in
  the working folder that the command line did not name.
- Python: the call returns, or raises an `Exception` of a meaningful kind (`ValueError`, `TypeError`,
  `agghoo.exceptions.*`, `NotImplementedError`, `OSError`); never a `BaseException` that `except
  Exception` misses (pyo3's `PanicException`), an `IndexError` / `KeyError` / `AttributeError` from inside
  the package, a dead interpreter, a hang or a memory kill.

Usage (from the repository root, with the package installed and the binary built):

    python python/tests/adversarial_sweep.py [--full] [--json] [--cli PATH] [--only cli|python]

`--quick` (the default) runs a deterministic sample of every family of cases and is what the test suite
runs (`python/tests/test_sweep.py`); `--full` runs every case. Exit code 1 when any case fails.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

MEMORY_CAP = 3 << 30  # address space of each child, bytes
CLI_BUDGET = "256M"  # --max-memory given to every CLI case: the binary's own bound, well under the cap
TIME_LIMIT = 30.0  # seconds per case

# Values tried for any flag that takes one (paths get their own list below).
BAD_VALUES = [
    "",
    "0",
    "-1",
    "1e300",
    "-1e300",
    "nan",
    "inf",
    "abc",
    "99999999999999999999",
    "1:0:1",
    "log:0:1:5",
    "log:1e-4:1:100000000",
    "a,,b",
    "=",
    "x" * 5000,
    "\u00e9\u2603",
]
PATH_VALUES = ["/nonexistent/dir/file", ".", "/dev/null", "../outside.txt", "/proc/self/mem"]
OUTPUT_FLAGS = {"--out", "--plot", "--oof", "--curve-out", "--out-dir"}
OWNED_PREFIX = "/tmp/agghoo-sweep-"  # crafted reports point their outputs here: nothing may appear


def _owned():
    return [os.path.join("/tmp", f) for f in os.listdir("/tmp") if os.path.join("/tmp", f).startswith(OWNED_PREFIX)
            and not f.startswith(("agghoo-sweep-py-", "agghoo-sweep-template-", "agghoo-sweep-work-"))]


PATH_FLAGS = {"--data", "--model", "--splits-file", "--data-dir"} | OUTPUT_FLAGS


def _limits():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.setsid()


def _run(argv, cwd, stdin=None, timeout=TIME_LIMIT):
    """Runs argv in its own session under the caps; returns (returncode or None on time-out, out, err)."""
    p = subprocess.Popen(
        argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_limits, errors="replace",
    )
    try:
        out, err = p.communicate(stdin, timeout=timeout)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return None, out, err


# ---------------------------------------------------------------------------------------------- CLI


def _write_data(folder):
    rng = random.Random(0)
    rows = ["id,a,b,city,y,r,g,fold"]
    for i in range(40):
        a, b = rng.gauss(0, 1), rng.gauss(0, 1)
        y = "yes" if a + b + rng.gauss(0, 0.5) > 0 else "no"
        rows.append(f"r{i},{a:.4f},{b:.4f},{['Paris', 'Lyon', 'Nice'][i % 3]},{y},{a - b:.4f},{i % 4},{i % 3}")
    with open(os.path.join(folder, "data.csv"), "w") as f:
        f.write("\n".join(rows) + "\n")


# Each subcommand: a valid small run (the base), to which one flag is set to a bad value.
CLI_BASES = {
    "select": ["select", "--data", "data.csv", "--target", "y", "--ignore", "id", "--ignore", "r", "--ignore", "g",
               "--ignore", "fold", "--family", "knn", "--grid", "1:9:2", "-V", "3"],
    "estimate": ["estimate", "--data", "data.csv", "--target", "r", "--ignore", "id", "--ignore", "y", "--ignore", "g",
                 "--ignore", "fold", "--family", "ridge", "--value", "0.1", "--plan", "vfold", "-V", "3"],
    "compare": ["compare", "--data", "data.csv", "--target", "y", "--ignore", "id", "--ignore", "r", "--ignore", "g",
                "--ignore", "fold", "--family", "knn", "--grid", "1:9:2", "--methods", "agghoo,cv", "--outer", "vfold:3",
                "-V", "2"],
    "splits": ["splits", "--data", "data.csv", "--target", "y", "--plan", "mc", "--splits", "3", "--tau", "0.8"],
    "gen": ["gen", "--data", "gen:knn", "--n", "50", "--out", "gen.csv"],
    "treecv": ["treecv", "--data", "gen:covertype", "--n", "200", "--learner", "pegasos", "--lambda", "1e-3",
               "--folds", "5"],
    "features": ["features", "--data", "data.csv", "--target", "y", "--ignore", "id", "--ignore", "city", "--ignore", "g",
                 "--ignore", "fold", "--method", "sfs", "--scorer", "wrapper:knn:3", "--evaluate", "vfold:3"],
    "predict": ["predict", "--model", "model.json", "--data", "data.csv", "--id", "id"],
    "replay": ["replay", "report.json"],
}


def _flags(cli, command):
    """(flag, takes_value) for each option of `agghoo COMMAND --help`."""
    done = subprocess.run([cli, command, "--help"], capture_output=True, text=True, check=True)
    flags = []
    for line in done.stdout.splitlines():
        words = line.strip().split()
        if not words or not words[0].startswith("-") or words[0] == "-":
            continue
        i = 1 if words[0].endswith(",") else 0  # "-V, --splits <N>"
        flag = words[i].rstrip(",")
        if not flag.startswith("--") or flag in ("--help", "--version"):
            continue
        flags.append((flag, len(words) > i + 1 and words[i + 1].startswith("<")))
    return flags


def _set_flag(base, flag, value):
    """base with `flag value`: replaces the flag's first occurrence, or appends it."""
    argv = list(base)
    if flag in argv:
        i = argv.index(flag)
        if value is None:
            return argv
        argv[i + 1] = value
        return argv
    return argv + ([flag] if value is None else [flag, value])


def cli_cases(cli, full):
    rng = random.Random(1)
    cases = []
    for command, base in CLI_BASES.items():
        for flag, takes_value in _flags(cli, command):
            if not takes_value:
                cases.append((command, _set_flag(base, flag, None)))
                continue
            values = PATH_VALUES + ["", "x"] if flag in PATH_FLAGS else BAD_VALUES
            if not full:
                values = rng.sample(values, min(4, len(values)))
            cases += [(command, _set_flag(base, flag, v)) for v in values]
    # The replay reports an attacker could hand over: outputs outside the folder, other subcommands.
    for i, (name, _) in enumerate(_crafted_reports()):
        cases.append(("replay", ["replay", name, "#", str(i)]))
    return cases


def _crafted_reports():
    """(file name, a function of a real `select --json` invocation giving the crafted one)."""

    def with_select(**fields):
        return lambda inv: {"select": {**inv["select"], **fields}}

    def as_command(name, **fields):
        return lambda inv: {name: {"data": inv["select"]["data"], "seed": 0, **fields}}

    return [
        ("abs-out.json", with_select(out="/tmp/agghoo-sweep-owned.txt")),
        ("dotdot-out.json", with_select(out="../owned.txt")),
        ("abs-plot.json", with_select(plot="/tmp/agghoo-sweep-owned")),
        ("gen.json", as_command("gen", out="/tmp/agghoo-sweep-gen.csv")),
        ("study.json", lambda inv: {"study": {"out": "/tmp/agghoo-sweep-study", "quick": True}}),
        ("wrong-types.json", with_select(data=7)),
        ("huge.json", with_select(seed=1e300)),
        ("unknown.json", lambda inv: {"rm": {"path": "/"}}),
        ("no-invocation.json", lambda inv: None),
    ]


def _prepare_cli_folder(cli, folder):
    _write_data(folder)
    base = CLI_BASES["select"] + ["--out", "model.json", "--json", "--seed", "1"]
    done = subprocess.run([cli, *base], cwd=folder, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"sweep set-up failed: agghoo {' '.join(base)}: {done.stderr}")
    with open(os.path.join(folder, "report.json"), "w") as f:
        f.write(done.stdout)
    os.remove(os.path.join(folder, "model.json"))
    subprocess.run([cli, *CLI_BASES["select"], "--out", "model.json"], cwd=folder, check=True, capture_output=True)


def run_cli_case(cli, template, command, argv):
    """One CLI case in a fresh copy of the template folder; returns a failure message or None."""
    with tempfile.TemporaryDirectory(prefix="agghoo-sweep-work-") as root:
        folder = os.path.join(root, "work")
        shutil.copytree(template, folder)
        if "#" in argv:  # a crafted report: its invocation replaces the recorded one
            name, craft = _crafted_reports()[int(argv[3])]
            with open(os.path.join(folder, "report.json")) as f:
                doc = json.load(f)
            doc["invocation"] = craft(doc["invocation"])
            with open(os.path.join(folder, name), "w") as f:
                json.dump(doc, f)
            argv = ["replay", name]
        before = set(os.listdir(folder))
        outside_before = set(os.listdir(root))
        code, out, err = _run([cli, "--max-memory", CLI_BUDGET, *argv], folder)
        named = {os.path.basename(a.rstrip("/")) for a in argv}
        new = {f for f in set(os.listdir(folder)) - before if not any(f.startswith(n) for n in named if n)}
        escaped = set(os.listdir(root)) - outside_before
        lines = [line for line in err.strip().splitlines() if line.strip()]
        errors = [line for line in lines if line.startswith("agghoo: error: ")]
        paths = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a in PATH_FLAGS] + [a for a in argv if a.endswith(".json")]
        problems = []
        if code is None:
            problems.append(f"no answer within {TIME_LIMIT:.0f} s")
        elif code < 0:
            problems.append(f"killed by signal {-code}")
        elif code not in (0, 1, 2):
            problems.append(f"exit code {code}")
        elif code == 2 and lines and lines[0].startswith("error: "):
            pass  # clap's usage error: the flag, the value and the accepted values, then a usage hint
        elif code != 0 and (len(errors) != 1 or lines[-1] != errors[0] or not all(x.startswith("agghoo: ") for x in lines)):
            problems.append("not one `agghoo: error:` line, last")
        if "panicked" in err:
            problems.append("panic")
        if errors and "(os error" in errors[0]:
            if not any(p and f"{p}:" in errors[0] or f"`{p}`" in errors[0] for p in paths):
                problems.append("an OS error that names no path")
            if errors[0].count("(os error") > 1:
                problems.append("the OS error repeated")
        if new:
            problems.append(f"wrote files nobody named: {sorted(new)}")
        owned = _owned()
        for path in owned:
            shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
        # replay may write outside its folder only where the user's own flag says (`--out-dir ../x`)
        if (escaped - named) and command == "replay" or owned:
            problems.append("wrote outside its folder")
        if problems:
            return f"agghoo {' '.join(a if len(a) < 60 else a[:57] + '...' for a in argv)}: {', '.join(problems)}\n    {err.strip()[:400]}"
        return None


def sweep_cli(cli, full, log):
    cases = cli_cases(cli, full)
    failures = []
    with tempfile.TemporaryDirectory(prefix="agghoo-sweep-template-") as template:
        _prepare_cli_folder(cli, template)
        for command, argv in cases:
            msg = run_cli_case(cli, template, command, argv)
            if msg:
                failures.append(msg)
                log(msg)
    return len(cases), failures


# ------------------------------------------------------------------------------------------- Python

PY_BAD = [None, -1, 0, 1e300, float("nan"), "abc", "", [], {}, True, -0.5, 10**12, "log:0:1:5", ["x", None]]

# The worker: reads one case a line (entry point, keyword, repr of the value), runs it, answers one line.
PY_WORKER = r'''
import json, sys, warnings
warnings.simplefilter("ignore")
import numpy as np
import agghoo, agghoo.exceptions
rng = np.random.default_rng(0)
X = rng.normal(size=(40, 3)); yc = (X[:, 0] + X[:, 1] > 0).astype(int); yr = X @ [1.0, -2.0, 0.5] + rng.normal(size=40)
calls = {
    "AgghooClassifier": lambda kw: agghoo.AgghooClassifier(**{"family": "knn", "grid": [1, 3, 5], "random_state": 0, **kw}).fit(X, yc).predict(X),
    "AgghooRegressor": lambda kw: agghoo.AgghooRegressor(**{"family": "ridge", "random_state": 0, **kw}).fit(X, yr).predict(X),
    "estimate_risk": lambda kw: agghoo.estimate_risk(X, yr, **{"family": "ridge", "value": 0.1, "plan": "vfold:3", **kw}),
    "compare": lambda kw: agghoo.compare(X, yc, **{"family": "knn", "grid": [1, 3, 5], "methods": "agghoo,cv", "outer": "vfold:3", **kw}),
    "treecv": lambda kw: agghoo.treecv(X, np.where(yc == 1, 1.0, -1.0), **{"learner": "pegasos", "folds": 5, **kw}),
    "select_features": lambda kw: agghoo.select_features(X, yc, **{"method": "sfs", "scorer": "wrapper:knn:3", "evaluate": "vfold:3", **kw}),
}
MEANINGFUL = (ValueError, TypeError, NotImplementedError, OSError, agghoo.exceptions.AgghooError)  # OverflowError is not: it names no parameter
for line in sys.stdin:
    entry, key, value = json.loads(line)
    value = eval(value, {"nan": float("nan"), "inf": float("inf")})
    try:
        calls[entry]({} if key is None else {key: value})
        answer = "ok"
    except MEANINGFUL as e:
        answer = "error"
        if "agghoo" not in type(e).__module__ and not str(e):
            answer = f"bad: {type(e).__name__} without a message"
    except Exception as e:
        answer = f"bad: {type(e).__module__}.{type(e).__name__}: {str(e)[:300]}"
    except BaseException as e:
        answer = f"bad: BaseException {type(e).__module__}.{type(e).__name__}: {str(e)[:300]}"
    print(json.dumps(answer), flush=True)
'''


def python_cases(full):
    import inspect

    import agghoo

    rng = random.Random(2)
    cases = []
    for entry in ("AgghooClassifier", "AgghooRegressor", "estimate_risk", "compare", "treecv", "select_features"):
        cases.append((entry, None, "None"))
        for name, p in inspect.signature(getattr(agghoo, entry)).parameters.items():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.default is inspect.Parameter.empty:
                continue
            if name in ("client", "verbose"):  # a client needs a cluster; verbose prints
                continue
            values = PY_BAD if full else rng.sample(PY_BAD, 4)
            cases += [(entry, name, repr(v)) for v in values]
    return cases


def sweep_python(full, log):
    cases = python_cases(full)
    failures = []
    with tempfile.TemporaryDirectory(prefix="agghoo-sweep-py-") as folder:
        worker = os.path.join(folder, "worker.py")
        with open(worker, "w") as f:
            f.write(PY_WORKER)
        i = 0
        while i < len(cases):
            p = subprocess.Popen([sys.executable, worker], cwd=folder, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, preexec_fn=_limits,
                                 env={**os.environ, "RAYON_NUM_THREADS": "2", "OMP_NUM_THREADS": "1"})
            while i < len(cases):
                entry, key, value = cases[i]
                p.stdin.write(json.dumps([entry, key, value]) + "\n")
                p.stdin.flush()
                answer = _read_line(p, TIME_LIMIT + (20 if i == 0 else 0))
                i += 1
                if answer is None or answer.startswith('"bad'):
                    what = "no answer (hang, crash or memory kill)" if answer is None else json.loads(answer)
                    msg = f"agghoo.{entry}({key}={value}): {what}"
                    failures.append(msg)
                    log(msg)
                if answer is None:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
                    break
            else:
                p.stdin.close()
                p.wait()
    return len(cases), failures


def _read_line(p, timeout):
    import selectors

    sel = selectors.DefaultSelector()
    sel.register(p.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if sel.select(timeout=deadline - time.monotonic()):
            line = p.stdout.readline()
            return line.strip() or None
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--full", action="store_true", help="every case (default: the quick sample)")
    ap.add_argument("--json", action="store_true", help="print a JSON summary on stdout")
    ap.add_argument("--cli", default=os.environ.get("AGGHOO_CLI") or shutil.which("agghoo"), help="the agghoo binary")
    ap.add_argument("--only", choices=["cli", "python"])
    args = ap.parse_args(argv)
    if args.cli:
        args.cli = os.path.abspath(args.cli) if os.path.exists(args.cli) else args.cli
    summary = {}
    log = (lambda m: None) if args.json else (lambda m: print("FAIL " + m, file=sys.stderr))
    started = time.monotonic()
    if args.only != "python":
        if not args.cli:
            raise SystemExit("no agghoo binary: pass --cli PATH or set AGGHOO_CLI")
        n, failures = sweep_cli(args.cli, args.full, log)
        summary["cli"] = {"cases": n, "failures": failures}
    if args.only != "cli":
        n, failures = sweep_python(args.full, log)
        summary["python"] = {"cases": n, "failures": failures}
    summary["seconds"] = round(time.monotonic() - started, 1)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        for part, s in summary.items():
            if part != "seconds":
                print(f"{part}: {s['cases']} cases, {len(s['failures'])} failed")
        print(f"{summary['seconds']} s")
    return 1 if any(s["failures"] for k, s in summary.items() if k != "seconds") else 0


if __name__ == "__main__":
    sys.exit(main())
