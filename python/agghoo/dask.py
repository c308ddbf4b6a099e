"""Run agghoo on a Dask cluster (``pip install agghoo[dask]``).

Every estimator and function of the package runs its units of work on a
``dask.distributed`` cluster when a client is given — ``client=`` on the functions, or for
everything inside a ``with`` block::

    from dask.distributed import Client
    import agghoo, agghoo.dask

    client = Client("tcp://scheduler:8786")
    with agghoo.dask.backend(client):
        clf = agghoo.AgghooClassifier(family="svc", method="majhoo").fit(X, y)
        cmp = agghoo.compare(X, y, family="knn", outer="vfold:10")
    res = agghoo.treecv(X, y, learner="pegasos", folds="loo", client=client)

What runs where (the data are sent to the cluster once, never per split or per candidate):

- selection (the estimators) and risk estimation: the splits are instantiated on the client
  from (plan, seed); the data and the job (specs, splits, the text of categorical columns and
  the row weights of a weighted fit) are scattered once to every worker; one task evaluates a
  block of splits over the whole grid path; the outcomes (binary, a split's kept member
  included) are gathered by split index and assembled by the same engine code as a local run;
- ``compare`` / ``nested_cv``: one task per outer split (its inner seed is derived from the
  outer split's global index, so a task's result does not depend on where it ran);
- Agghoo over a scikit-learn ``estimator=``: one task per split, the estimator shipped with
  cloudpickle, the data (and ``sample_weight``) scattered once;
- ``treecv`` (the TreeCV paper's distributed variant): consecutive chunks are scattered once to
  the worker that owns them and never move; a task feeds a model with the chunks of one worker
  and passes it on; once a subtree's chunks all sit on one worker, the rest of that subtree runs
  there as one task. Only models travel. Fixed order and the tree method only: the randomised
  order permutes points across chunks, so it would move rows between workers.

Determinism: every unit is a pure function of (data, job, global unit index), and results are
gathered by index, so a Dask run equals the local run bit for bit — whatever the number of
workers, the order in which they finish, or a worker lost mid-run (its tasks are rerun
elsewhere). Bit-identity across machines assumes the same wheel and the same CPU instruction set
on every worker (SIMD kernels are chosen at run time).

Threads: a task runs the library's Rust thread pool with
``max(1, cores of its host // Dask threads of all workers on that host)`` threads, so several
workers on one host do not oversubscribe it (Dask's nanny limits OpenMP/BLAS, not Rust's pool).
``backend(client, threads_per_task=N)`` overrides it.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import os
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from . import _native

__all__ = ["backend", "active_client", "run_job", "treecv", "transfer_log"]

_backend = contextvars.ContextVar("agghoo_dask_backend", default=None)


class _Backend:
    def __init__(self, client, blocks_per_thread=2, threads_per_task=None):
        self.client = client
        self.blocks_per_thread = blocks_per_thread
        self.threads_per_task = threads_per_task


@contextlib.contextmanager
def backend(client: Any = None, blocks_per_thread: int = 2, threads_per_task: int | None = None) -> Iterator[Any]:
    """Run every agghoo call inside the block on the Dask cluster of ``client``.

    Parameters
    ----------
    client : dask.distributed.Client, optional
        The cluster; the current client (``distributed.get_client()``) when omitted.
    blocks_per_thread : int, default=2
        Selection and estimation cut their splits into blocks of decreasing size: each block
        takes ``1 / (blocks_per_thread × Dask threads)`` of the splits still left (at least one),
        so the last blocks are single splits and the threads finish together. More blocks
        balance load better; each block builds the family once.
    threads_per_task : int, optional
        Rust threads per task; by default the host's cores shared among its Dask threads.

    Examples
    --------
    >>> from dask.distributed import Client
    >>> from sklearn.datasets import load_breast_cancer
    >>> import agghoo, agghoo.dask
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> local = agghoo.AgghooClassifier(grid=[1, 5], n_splits=3).fit(X, y)
    >>> with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
    ...     with agghoo.dask.backend(client):
    ...         remote = agghoo.AgghooClassifier(grid=[1, 5], n_splits=3).fit(X, y)
    >>> remote.report_["splits"] == local.report_["splits"]
    True
    """
    if client is None:
        from distributed import get_client

        client = get_client()
    _check_client(client)
    token = _backend.set(_Backend(client, int(blocks_per_thread), threads_per_task))
    try:
        yield client
    finally:
        _backend.reset(token)


def active_client(client: Any = None) -> Any:
    """The client an agghoo call should use: ``client`` if given, else that of the enclosing
    :func:`backend` block, else ``None`` (run locally).

    Examples
    --------
    >>> from agghoo.dask import active_client
    >>> active_client() is None
    True
    """
    if client is not None:
        _check_client(client)
        return _Backend(client)
    return _backend.get()


def _check_client(client):
    """Refuses a ``client`` that is not a ``dask.distributed.Client`` (an address string, say)."""
    try:
        from distributed import Client
    except ImportError:
        raise TypeError(
            f"client must be a dask.distributed.Client, got {type(client).__name__} {client!r} "
            "(and dask.distributed is not installed: pip install agghoo[dask])"
        ) from None
    if not isinstance(client, Client):
        hint = f": connect first, client=dask.distributed.Client({client!r})" if isinstance(client, str) else ""
        raise TypeError(f"client must be a dask.distributed.Client, got {type(client).__name__} {client!r}{hint}")


def _workers(client):
    """Worker addresses (sorted, so chunk ownership is reproducible) and their thread counts."""
    info = client.scheduler_info(n_workers=-1)["workers"] if _accepts_n_workers(client) else client.scheduler_info()["workers"]
    if not info:
        raise RuntimeError("the Dask cluster has no workers")
    return sorted(info), {a: int(w.get("nthreads", 1)) for a, w in info.items()}, {a: w.get("host", a) for a, w in info.items()}


def _accepts_n_workers(client):
    import inspect

    return "n_workers" in inspect.signature(client.scheduler_info).parameters


def _threads(be):
    """Rust threads per task, per worker address."""
    addresses, nthreads, hosts = _workers(be.client)
    if be.threads_per_task is not None:
        return {a: int(be.threads_per_task) for a in addresses}
    per_host = {}
    for a in addresses:
        per_host[hosts[a]] = per_host.get(hosts[a], 0) + nthreads[a]
    return {a: per_host[hosts[a]] for a in addresses}


def _task_threads(host_threads):
    """Inside a task: the host's cores shared among the Dask threads of all its workers."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return max(1, cores // max(1, host_threads))


def _array(a):
    """A C-contiguous, aligned float64 array (what arrives from another process may be neither)."""
    return np.require(a, dtype=np.float64, requirements=["C", "A"])


def _evaluate_block(job, X, y, units, host_threads):
    return job.evaluate(_array(X), _array(y), units, threads=_task_threads(host_threads))


def _blocks(n, n_threads, blocks_per_thread):
    """Units ``0..n`` cut into consecutive blocks of decreasing size (guided scheduling): each
    block takes ``ceil(remaining / (blocks_per_thread * n_threads))`` units, so the first tasks are
    large (each builds the family once) and the last ones single units, which the threads finish
    together instead of one thread running a large last block alone."""
    share = max(1, blocks_per_thread * n_threads)
    blocks, start = [], 0
    while start < n:
        size = -(-(n - start) // share)
        blocks.append(list(range(start, start + size)))
        start += size
    return blocks


def run_job(be, job, X, y):
    """Evaluate the units of ``job`` (a ``_native.Job``) on the cluster and assemble them.

    The data and the job are scattered once to every worker; one task per block of units
    (:func:`_blocks`, largest first); each block's outcomes are fetched as soon as it finishes,
    so that only the last (smallest) block's travel is left when the work ends; the outcomes
    are assembled in unit order on the client.
    """
    from distributed import as_completed

    client = be.client
    n = job.n_units
    if n == 0:
        return job.assemble(X, y, [])
    addresses, nthreads, _ = _workers(client)
    host_threads = _threads(be)
    blocks = _blocks(n, sum(nthreads.values()), be.blocks_per_thread)
    X_f, y_f, job_f = client.scatter([X, y, job], broadcast=True, hash=False)
    futures = [
        client.submit(_evaluate_block, job_f, X_f, y_f, block, host_threads[addresses[i % len(addresses)]], pure=False)
        for i, block in enumerate(blocks)
    ]
    index = {f.key: i for i, f in enumerate(futures)}
    done = [None] * len(blocks)
    try:
        for future in as_completed(futures):
            done[index[future.key]] = future.result()
    finally:
        client.cancel(futures + [X_f, y_f, job_f])
    return job.assemble(X, y, [o for block in done for o in block])


def map_splits(be, fn, X, y, splits, *args, sample_weight=None):
    """``[fn(X, y, train, validation, *args) ...]`` (with ``sample_weight=`` when given) — helper
    of the meta-estimator: one task per split, the data and the weights scattered once, results
    in split order."""
    client = be.client
    shared = client.scatter([X, y] if sample_weight is None else [X, y, sample_weight], broadcast=True, hash=False)
    weights = {} if sample_weight is None else {"sample_weight": shared[2]}
    futures = [client.submit(fn, shared[0], shared[1], train, validation, *args, **weights, pure=False) for train, validation in splits]
    try:
        return client.gather(futures)
    finally:
        client.cancel(futures + shared)


# ---- distributed TreeCV -------------------------------------------------------------------


def _on_block(call, spec, model, X, y, lo, hi, data, host_threads, **extra):
    """``call`` (``_native.treecv_feed`` or ``treecv_subtree``) on rows ``lo..hi`` of a worker's block."""
    return call(spec, model, _array(X[lo:hi]), _array(y[lo:hi]), data, threads=_task_threads(host_threads), **extra)


def treecv(be, X, y, names, class_names, spec):
    """TreeCV of ``spec`` (the library's ``TreecvSpec`` as ``_native.treecv`` takes it, ``folds`` a
    count) with chunks pinned to workers and only models travelling (see the module docs).

    Returns the ``treecv --json`` report (a dict) and, under ``"distribution"``, what the run
    placed where: the owner of each chunk and the keys of the scattered chunk blocks.
    """
    if spec["method"] != "tree" or spec["order"] != "fixed":
        raise ValueError(
            "distributed TreeCV runs the tree method in the fixed order: the randomised order permutes "
            "points across chunks (rows would move between workers); run it locally"
        )
    client = be.client
    start = time.perf_counter()
    n = X.shape[0]
    chunks = _native.treecv_chunks(n, spec["folds"], shuffle=spec["shuffle"], seed=spec["seed"])
    k = len(chunks)
    addresses, _, _ = _workers(client)
    n_workers = min(len(addresses), k)
    host_threads = _threads(be)
    owner = [j * n_workers // k for j in range(k)]
    sizes = [len(c) for c in chunks]
    first = [owner.index(w) for w in range(n_workers)]
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    blocks = []
    for w in range(n_workers):
        rows = np.concatenate([chunks[j] for j in range(k) if owner[j] == w])
        X_w, y_w = client.scatter([np.ascontiguousarray(X[rows]), np.ascontiguousarray(y[rows])], workers=[addresses[w]], hash=False)
        blocks.append((X_w, y_w))
    text = json.dumps(spec)
    data = {"feature_names": names, "class_names": class_names}

    def local(w, a, b):
        """Row range of chunks a..b inside worker w's block."""
        base = offsets[first[w]]
        return int(offsets[a] - base), int(offsets[b + 1] - base)

    # The library's recursion, as tasks in submission order: each feeds chunks to a model or runs
    # a subtree, on the worker holding the chunks, from the untrained model or an earlier feed's.
    futures, leaves = [], []
    for kind, model, w, a, b in _native.treecv_schedule(owner):
        lo, hi = local(w, a, b)
        start_model = None if model is None else futures[model]
        where = dict(workers=[addresses[w]], allow_other_workers=False, pure=False)
        if kind == "feed":
            task = client.submit(_on_block, _native.treecv_feed, text, start_model, *blocks[w], lo, hi, data, host_threads[addresses[w]], **where)
        else:
            task = client.submit(
                _on_block, _native.treecv_subtree, text, start_model, *blocks[w], lo, hi, data, host_threads[addresses[w]],
                sizes=sizes[a : b + 1], **where,
            )
            leaves.append(task)
        futures.append(task)
    try:
        results = client.gather(leaves)
    finally:
        client.cancel(futures + [f for block in blocks for f in block])
    sums = [s for loss_sums, _ in results for s in loss_sums]
    n_classes = 0 if class_names is None else len(class_names)
    report = _native.treecv_assemble(text, sums, sizes, n_classes, time.perf_counter() - start)
    result = json.loads(report)
    result["distribution"] = {
        "workers": [addresses[w] for w in range(n_workers)],
        "chunk_owner": owner,
        "chunk_keys": [f.key for block in blocks for f in block],
        "tasks": len(futures),
    }
    return result


def transfer_log(client: Any) -> dict[str, list[tuple[str, int]]]:
    """Bytes moved between workers so far, per worker: ``{address: [(key, nbytes), ...]}``, from
    each worker's log of incoming transfers (what the scheduler made one worker fetch from another;
    not what the client scattered).

    Examples
    --------
    >>> from dask.distributed import Client
    >>> from agghoo.dask import transfer_log
    >>> with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
    ...     list(transfer_log(client).values())
    [[]]
    """

    def incoming(dask_worker):
        log = getattr(dask_worker, "transfer_incoming_log", None)
        if log is None:
            log = getattr(dask_worker.state, "transfer_incoming_log", [])
        out = []
        for entry in list(log):
            for key, nbytes in entry.get("keys", {}).items():
                out.append((str(key), int(nbytes)))
        return out

    return client.run(incoming)
