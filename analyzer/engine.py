"""Where the per-file work runs: this process, a local process pool, or a Dask cluster.

The unit of work is one source: read it, parse its lines, and classify its events with the
pattern library. Each unit returns only its (condensed) events and their findings, so the
parent process — which decides node identities and time zones and runs the diagnosis — never
holds more than the reduced data. Engines:

``local`` (default)
    files of a small input are parsed here; a larger input (32 MB or more) is spread over a
    process pool with one process per core (``workers``).
``dask``
    each file is a task on an existing Dask cluster (``scheduler="tcp://host:8786"``); the
    workers must see the same paths (a shared file system) and have tfdiag installed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

if TYPE_CHECKING:
    from analyzer.formats import Keep
    from analyzer.ingest import _Parsed
    from analyzer.rules import RuleSet
    from analyzer.sources import Source

ENGINES = ("local", "dask")
#: Below this many bytes in all, files are parsed in this process (a pool costs more).
PARALLEL_THRESHOLD = 32 * 1024 * 1024
#: Columns that classification adds to each event (null where no rule matched).
FINDING_COLUMNS = ("pattern_id", "category", "severity", "blames", "captures")


@dataclass(frozen=True)
class Work:
    """What every unit of work needs to know (sent once per task; small and picklable)."""

    max_bytes: int
    keep: Keep | None = None
    rules: RuleSet | None = None
    regex_timeout: float = 0.5


def process_source(src: Source, work: Work) -> _Parsed:
    """Read, parse and classify one source (see :func:`process_batch`)."""
    return process_batch([src], work)[0]


def process_batch(sources: Sequence[Source], work: Work) -> list[_Parsed]:
    """Read and parse each source, then classify all their events in one pass.

    One classification per batch rather than per file: the rules' prefilter and the table
    conversions cost the same for ten rows as for ten thousand.
    """
    from analyzer.ingest import _read_and_parse

    results = [_read_and_parse(src, work.max_bytes, work.keep) for src in sources]
    parsed = [r for r in results if r.parsed is not None]
    if work.rules is None or not parsed:
        return results
    tables = [r.parsed.table for r in parsed]  # type: ignore[union-attr]
    combined, problems = classify_table(pa.concat_tables(tables), work.rules, work.regex_timeout)
    start = 0
    for result, table in zip(parsed, tables, strict=True):
        result.parsed.table = combined.slice(start, table.num_rows)  # type: ignore[union-attr]
        start += table.num_rows
    if problems:
        parsed[0].problems.extend(problems)
    return results


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


def classify_table(table: pa.Table, rules: RuleSet, timeout: float) -> tuple[pa.Table, list[str]]:
    """Add :data:`FINDING_COLUMNS` and ``benign`` to a parsed table."""
    import pandas as pd

    from analyzer.classify import classify

    events = table.select(["message", "detail", "level", "source", "format", "line_no"]).to_pandas(
        types_mapper=pd.ArrowDtype
    )
    result = classify(events, rules, timeout=timeout)
    found = result.findings
    n = table.num_rows
    rows = found["row"].to_numpy(dtype=np.int64) if len(found) else np.array([], np.int64)
    for name in FINDING_COLUMNS:
        values = np.full(n, None, dtype=object)
        if len(rows):
            column = found[name].astype(object).where(found[name].notna(), None).to_numpy()
            values[rows] = column
        table = table.append_column(name, pa.array(values.tolist(), pa.large_string()))
    benign = np.zeros(n, dtype=bool)
    if len(rows):
        benign[rows] = found["benign"].to_numpy(dtype=bool)
    table = table.append_column("benign", pa.array(benign))
    return table, list(result.problems)


def run_all(
    sources: Sequence[Source],
    work: Work,
    *,
    engine: str = "local",
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Any = None,
) -> Iterator[_Parsed]:
    """Run :func:`process_source` over ``sources``; results come back in the order given."""
    if engine == "dask":
        yield from _run_dask(sources, work, scheduler, progress)
        return
    if engine != "local":
        raise ValueError(f"unknown engine {engine!r} (choose from {', '.join(ENGINES)})")
    total_bytes = sum(s.size for s in sources)
    workers = workers or (os.cpu_count() or 1)
    if workers > 1 and len(sources) > 1 and total_bytes >= PARALLEL_THRESHOLD:
        groups = batches(sources, workers * 4)
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(process_batch, group, work) for group in groups]
            yield from _collect(futures, len(sources), progress)
        return
    done = 0
    for group in batches(sources, max(1, total_bytes // (64 * 1024 * 1024))):
        for result in process_batch(group, work):
            done += 1
            if progress:
                progress(done, len(sources), result.source.name)
            yield result


def _collect(futures, total: int, progress: Any) -> Iterator[_Parsed]:
    done = 0
    for fut in futures:
        for result in fut.result():
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


def captures_of(text: str | None) -> dict[str, str]:
    """The captures column's JSON text → dict."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
