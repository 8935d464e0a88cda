"""Where the per-file work runs: this process, a local process pool, or a Dask cluster.

The unit of work is a batch of sources (:func:`analyzer.parse.process_batch`): read them,
parse their lines, and classify their events with the pattern library. Each unit returns only
its (condensed) events and their findings, so the parent process — which decides node identities and time zones and runs the diagnosis — never
holds more than the reduced data. Engines:

``local`` (default)
    files of a small input are parsed here; a larger input (32 MB or more) is spread over a
    process pool with one process per core (``workers``).
``dask``
    each file is a task on an existing Dask cluster (``scheduler="tcp://host:8786"``); the
    workers must see the same paths (a shared file system) and have tfdiag installed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING, Any

from analyzer.parse import Parsed, Work, process_batch

if TYPE_CHECKING:
    from analyzer.sources import Source

ENGINES = ("local", "dask")
#: Below this many bytes in all, files are parsed in this process (a pool costs more).
PARALLEL_THRESHOLD = 32 * 1024 * 1024


def batches(sources: Sequence[Source], count: int) -> list[list[Source]]:
    """Split ``sources`` into at most ``count`` batches of about equal size, order kept inside."""
    count = max(1, min(count, len(sources)))
    target = sum(max(s.size, 1) for s in sources) / count
    out: list[list[Source]] = [[]]
    filled = 0.0
    for src in sources:
        if out[-1] and filled >= target and len(out) < count:
            out.append([])
            filled = 0.0
        out[-1].append(src)
        filled += max(src.size, 1)
    return out


def run_all(
    sources: Sequence[Source],
    work: Work,
    *,
    engine: str = "local",
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Any = None,
) -> Iterator[Parsed]:
    """Run :func:`analyzer.parse.process_batch` over ``sources``, in batches; results come back
    in the order given."""
    if engine == "dask":
        yield from _run_dask(sources, work, scheduler, progress)
        return
    if engine != "local":
        raise ValueError(f"unknown engine {engine!r} (choose from {', '.join(ENGINES)})")
    total_bytes = sum(s.size for s in sources)
    workers = workers or (os.cpu_count() or 1)
    if workers > 1 and len(sources) > 1 and total_bytes >= PARALLEL_THRESHOLD:
        count = workers * 4
        if work.batch_bytes:
            count = max(count, -(-total_bytes // work.batch_bytes))
        groups = batches(sources, count)
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(process_batch, group, work) for group in groups]
            yield from _collect(futures, len(sources), progress)
        return
    done = 0
    limit = work.batch_bytes or 64 * 1024 * 1024
    for group in batches(sources, max(1, total_bytes // limit)):
        for result in process_batch(group, work):
            done += 1
            if progress:
                progress(done, len(sources), result.source.name)
            yield result


def _collect(futures, total: int, progress: Any) -> Iterator[Parsed]:
    """The results of ``futures`` in order; each is let go of once handed on."""
    done = 0
    futures = list(futures)
    for i in range(len(futures)):
        fut, futures[i] = futures[i], None
        results = fut.result()
        del fut
        while results:
            result = results.pop(0)
            done += 1
            if progress:
                progress(done, total, result.source.name)
            yield result


def _run_dask(sources: Sequence[Source], work: Work, scheduler: str | None, progress: Any):
    try:
        from distributed import Client
    except ImportError as exc:  # pragma: no cover - depends on the extra
        raise RuntimeError("the dask engine needs Dask: pip install 'tfdiag[dask]'") from exc
    if not scheduler:
        raise ValueError("the dask engine needs --scheduler tcp://HOST:PORT")
    with Client(scheduler, timeout="30s") as client:
        shared = client.scatter(work, broadcast=True)
        threads = sum(client.nthreads().values()) or 1
        groups = batches(sources, threads * 4)
        futures = client.map(process_batch, groups, work=shared, pure=False)
        yield from _collect(futures, len(sources), progress)
