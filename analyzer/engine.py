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
    """Read, parse and classify one source (runs in a worker process or a Dask task)."""
    from analyzer.ingest import _read_and_parse

    result = _read_and_parse(src, work.max_bytes, work.keep)
    if result.parsed is not None and work.rules is not None:
        table, problems = classify_table(result.parsed.table, work.rules, work.regex_timeout)
        result.parsed.table = table
        result.problems.extend(problems)
    return result


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
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(process_source, src, work) for src in sources]
            for done, fut in enumerate(futures, 1):
                result = fut.result()
                if progress:
                    progress(done, len(sources), result.source.name)
                yield result
        return
    for done, src in enumerate(sources, 1):
        result = process_source(src, work)
        if progress:
            progress(done, len(sources), src.name)
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
        futures = client.map(process_source, list(sources), work=shared, pure=False)
        for done, fut in enumerate(futures, 1):
            result = fut.result()
            if progress:
                progress(done, len(sources), result.source.name)
            yield result


def captures_of(text: str | None) -> dict[str, str]:
    """The captures column's JSON text → dict."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
