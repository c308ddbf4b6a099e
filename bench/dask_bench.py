"""agghoo on a Dask LocalCluster against the local run, in one process: bytes moved by the
distributed TreeCV (from the workers' transfer logs), and the cluster's overhead on a nested
comparison and a forest Agghoo. Prints `key<TAB>value` lines; exits non-zero on any failure or
on a result that differs from the local run.

With --account, only the forest row runs, and where its time goes is printed too (the local
run on 1 and on 2 threads, the cluster's task stream, the CPU time of every process of the
cluster, the client's assembly; Linux only: process CPU times are read from /proc).

Usage: python bench/dask_bench.py [--quick] [--account]
"""

import os
import sys
import time

import numpy as np
from dask.distributed import Client, LocalCluster

import agghoo
import agghoo.dask as adask

QUICK = "--quick" in sys.argv
ACCOUNT = "--account" in sys.argv


def classification(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X @ rng.normal(size=d) + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def cluster(workers):
    c = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
    return c, Client(c)


def moved(client, chunk_keys, before):
    chunk = model = count = 0
    for worker, log in adask.transfer_log(client).items():
        for key, nbytes in log[before.get(worker, 0):]:
            count += 1
            if key in chunk_keys:
                chunk += nbytes
            else:
                model += nbytes
    return chunk, model, count


def out(key, value):
    print(f"{key}\t{value}", flush=True)


def treecv_run(n, workers, tag):
    X, y = classification(n, 54, 1)
    kwargs = dict(learner="pegasos", folds="loo", lambda_=1e-6, random_state=3)
    t = time.perf_counter()
    local = agghoo.treecv(X, y, n_jobs=1, **kwargs)
    local_s = time.perf_counter() - t
    c, client = cluster(workers)
    with c, client:
        before = {w: len(v) for w, v in adask.transfer_log(client).items()}
        t = time.perf_counter()
        remote = agghoo.treecv(X, y, client=client, **kwargs)
        remote_s = time.perf_counter() - t
        dist = remote.to_dict()["distribution"]
        chunk, model, count = moved(client, set(map(str, dist["chunk_keys"])), before)
    if remote.chunk_losses != local.chunk_losses or remote.estimate != local.estimate:
        raise SystemExit(f"treecv {tag}: the cluster's result differs from the local run")
    out(f"{tag}_n", n)
    out(f"{tag}_workers", workers)
    out(f"{tag}_tasks", dist["tasks"])
    out(f"{tag}_transfers", count)
    out(f"{tag}_chunk_bytes_moved", chunk)
    out(f"{tag}_model_bytes_moved", model)
    out(f"{tag}_local_seconds", f"{local_s:.2f}")
    out(f"{tag}_cluster_seconds", f"{remote_s:.2f}")


class Outcomes:
    """A job that records the byte size of every outcome it assembles (what the workers sent)."""

    def __init__(self, job, sizes):
        self.job, self.sizes = job, sizes

    @property
    def n_units(self):
        return self.job.n_units

    def evaluate(self, *args, **kwargs):
        return self.job.evaluate(*args, **kwargs)

    def assemble(self, X, y, outcomes, *args, **kwargs):
        self.sizes.extend(len(o) for o in outcomes)
        return self.job.assemble(X, y, outcomes, *args, **kwargs)


def cpu_seconds(pid="self"):
    """User + system CPU time of a process (Linux: /proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def worker_and_nanny_cpu():
    """On a worker: its CPU seconds and its nanny's (the parent process)."""
    return cpu_seconds(), cpu_seconds(os.getppid())


def account(name, call, workers=2):
    """Where the cluster's time goes for ``call``, against the local run on 2 and on 1 thread."""
    from dask.distributed import get_task_stream

    for threads in (2, 1):
        t, c = time.perf_counter(), cpu_seconds()
        local = call(None, threads)
        out(f"{name}_local_{threads}_threads_seconds", f"{time.perf_counter() - t:.2f}")
        out(f"{name}_local_{threads}_threads_cpu_seconds", f"{cpu_seconds() - c:.2f}")
    c, client = cluster(workers)
    with c, client:
        call(client, None)  # warm-up
        before, t = client.run(worker_and_nanny_cpu), time.perf_counter()
        time.sleep(5)
        after, idle_s = client.run(worker_and_nanny_cpu), time.perf_counter() - t
        out(f"{name}_idle_cluster_cpu_per_second_workers", f"{sum(after[w][0] - before[w][0] for w in after) / idle_s:.3f}")
        out(f"{name}_idle_cluster_cpu_per_second_nannies", f"{sum(after[w][1] - before[w][1] for w in after) / idle_s:.3f}")
        assembly, run_job = [], adask.run_job

        class Timed(Outcomes):
            def assemble(self, *args, **kwargs):
                t, c = time.time(), cpu_seconds()
                result = self.job.assemble(*args, **kwargs)
                assembly.append((t, time.time() - t, cpu_seconds() - c))
                return result

        adask.run_job = lambda be, job, X, y: run_job(be, Timed(job, []), X, y)
        try:
            before, client_cpu = client.run(worker_and_nanny_cpu), cpu_seconds()
            with get_task_stream(client) as stream:
                start = time.time()
                remote = call(client, None)
                wall = time.time() - start
            after, client_cpu = client.run(worker_and_nanny_cpu), cpu_seconds() - client_cpu
        finally:
            adask.run_job = run_job
    if remote != local:
        raise SystemExit(f"{name}: the cluster's result differs from the local run")
    busy = {}
    for task in stream.data:
        for s in task["startstops"]:
            if s["action"] == "compute":
                busy.setdefault(task["worker"], []).append((s["start"], s["stop"]))
    # the task stream's times are the workers' clocks: on one machine, those of time.time()
    first = min(a for spans in busy.values() for a, _ in spans)
    ends = sorted(max(b for _, b in spans) for spans in busy.values())
    assembled_at, assemble_s, assemble_cpu = assembly[-1]
    out(f"{name}_cluster_seconds", f"{wall:.2f}")
    out(f"{name}_cluster_until_first_task_seconds", f"{first - start:.2f}")
    out(f"{name}_cluster_task_compute_seconds", f"{sum(b - a for spans in busy.values() for a, b in spans):.2f}")
    out(f"{name}_cluster_tasks_per_worker", " ".join(str(len(spans)) for spans in busy.values()))
    out(f"{name}_cluster_idle_at_end_seconds", f"{ends[-1] - ends[0]:.2f}")
    out(f"{name}_cluster_last_task_to_assembly_seconds", f"{assembled_at - ends[-1]:.2f}")
    out(f"{name}_cluster_after_assembly_seconds", f"{start + wall - assembled_at - assemble_s:.2f}")
    out(f"{name}_cluster_assembly_seconds", f"{assemble_s:.2f}")
    out(f"{name}_cluster_assembly_cpu_seconds", f"{assemble_cpu:.2f}")
    out(f"{name}_cluster_cpu_seconds_workers", f"{sum(after[w][0] - before[w][0] for w in after):.2f}")
    out(f"{name}_cluster_cpu_seconds_nannies", f"{sum(after[w][1] - before[w][1] for w in after):.2f}")
    out(f"{name}_cluster_cpu_seconds_client_and_scheduler", f"{client_cpu:.2f}")


def overhead(name, call, workers=2):
    t = time.perf_counter()
    local = call(None)
    local_s = time.perf_counter() - t
    c, client = cluster(workers)
    with c, client:
        # warm-up (the workers import agghoo and numpy once), recording the outcomes' bytes
        sizes, run_job = [], adask.run_job
        adask.run_job = lambda be, job, X, y: run_job(be, Outcomes(job, sizes), X, y)
        try:
            call(client)
        finally:
            adask.run_job = run_job
        t = time.perf_counter()
        remote = call(client)
        remote_s = time.perf_counter() - t
    if remote != local:
        raise SystemExit(f"{name}: the cluster's result differs from the local run")
    if not sizes:
        raise SystemExit(f"{name}: no outcome was gathered from the cluster")
    out(f"{name}_local_seconds", f"{local_s:.2f}")
    out(f"{name}_cluster_seconds", f"{remote_s:.2f}")
    out(f"{name}_outcome_bytes", sum(sizes))


def forest_call():
    """The forest row: Agghoo over random forests (50 trees, mtry 2 and 5, 10 splits)."""
    Xf, yf = classification(5_000 if QUICK else 20_000, 10, 3)

    def forest(client, threads=None):
        # n_jobs=-1: the local run uses every core, as the cluster's workers do.
        kwargs = dict(family="forest", method="agghoo", grid=[2, 5], params={"trees": 50}, random_state=4, n_jobs=threads or -1)
        if client is None:
            return agghoo.AgghooClassifier(**kwargs).fit(Xf, yf).model_.to_json()
        with adask.backend(client):
            return agghoo.AgghooClassifier(**kwargs).fit(Xf, yf).model_.to_json()

    return forest


def main():
    if ACCOUNT:
        account("forest_agghoo", forest_call())
        return
    n = 20_000 if QUICK else 581_012
    treecv_run(n, 2, "treecv_loo")
    for workers in (2, 4, 8):
        treecv_run(20_000 if QUICK else 100_000, workers, f"treecv_scale{workers}")

    X, y = classification(2_000 if QUICK else 5_000, 10, 2)

    def nested(client):
        return agghoo.compare(
            X, y, family="knn", grid=range(1, 40, 2), methods=["agghoo", "cv"], outer="vfold:10", inner="mc:10:0.8", client=client, n_jobs=-1
        ).to_dict()

    overhead("nested_10x10", nested)
    overhead("forest_agghoo", forest_call())


if __name__ == "__main__":
    main()
