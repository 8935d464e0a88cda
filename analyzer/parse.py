"""The unit of work: a batch of sources read, parsed and classified.

What :mod:`analyzer.engine` runs in this process, in a pool's processes or on Dask workers,
and what :mod:`analyzer.ingest` then puts together: each source comes back as a
:class:`Parsed` (its events with their findings, or why it was not read). Nothing here knows
about nodes, time zones or the other files of the run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from analyzer.formats import (
    CONTINUED_FORMATS,
    SMALL_FILE,
    Keep,
    ParsedLines,
    parse_lines,
    parse_many,
)
from analyzer.sources import Source, read_source, sniff_binary

if TYPE_CHECKING:
    from analyzer.rules import RuleSet

#: Columns that classification adds to each event (null where no rule matched).
FINDING_COLUMNS = ("pattern_id", "category", "severity", "blames", "captures")


@dataclass
class Parsed:
    """One source after parsing, before the node is decided (what a worker process returns)."""

    source: Source
    parsed: ParsedLines | None
    problems: list[str]
    skipped: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class Work:
    """What every unit of work needs to know (sent once per task; small and picklable)."""

    max_bytes: int
    keep: Keep | None = None
    rules: RuleSet | None = None
    regex_timeout: float = 0.5
    #: At most this many bytes of logs in one task of the engine (0: the engine decides);
    #: a task's events all travel back at once, so a full parse wants small tasks.
    batch_bytes: int = 0


def process_source(src: Source, work: Work) -> Parsed:
    """Read, parse and classify one source (see :func:`process_batch`)."""
    return process_batch([src], work)[0]


def process_batch(sources: Sequence[Source], work: Work) -> list[Parsed]:
    """Read and parse each source, then classify all their events in one pass.

    One parse for all the small files of the batch (:func:`analyzer.formats.parse_many`) and
    one classification per batch rather than per file: the rules' prefilter and the table
    conversions cost the same for ten rows as for ten thousand.
    """
    results = read_and_parse(sources, work.max_bytes, work.keep)
    parsed = [r for r in results if r.parsed is not None]
    if work.rules is None or not parsed:
        return results
    tables = [r.parsed.table for r in parsed]  # type: ignore[union-attr]
    sizes = np.array([t.num_rows for t in tables], dtype=np.int64)
    combined, problems = classify_table(
        pa.concat_tables(tables), work.rules, work.regex_timeout, np.cumsum(sizes)
    )
    if len(tables) > 32:  # many small files: slicing columns of thousands of chunks is slow
        combined = combined.combine_chunks()
    start = 0
    for result, table in zip(parsed, tables, strict=True):
        result.parsed.table = combined.slice(start, table.num_rows)  # type: ignore[union-attr]
        start += table.num_rows
    if problems:
        parsed[0].problems.extend(problems)
    return results


def read_and_parse(
    sources: Sequence[Source], max_bytes: int, keep: Keep | None = None
) -> list[Parsed]:
    """Read each source and parse what it holds; a source that cannot be read or parsed is
    named with why, never fatal."""
    results: list[Parsed | None] = [None] * len(sources)
    datas: list[bytes] = []
    todo: list[int] = []
    for i, src in enumerate(sources):
        try:
            result = read_source(src, max_bytes=max_bytes)
        except (OSError, EOFError, ValueError) as exc:  # permission denied, vanished, bad member
            why = getattr(exc, "strerror", None) or exc
            results[i] = Parsed(src, None, [], error=f"cannot read: {why}")
            continue
        if not result.data:
            results[i] = Parsed(src, None, result.problems, error="empty file (no lines)")
            continue
        why_binary = sniff_binary(result.data[:8192])
        if why_binary:
            results[i] = Parsed(src, None, result.problems, skipped=f"not a log: {why_binary}")
            continue
        results[i] = Parsed(src, None, result.problems)
        if len(result.data) > SMALL_FILE:  # parsed now: a batch never holds two large files
            _attach(results[i], _parse_one(result.data, keep))
            del result
            pa.default_memory_pool().release_unused()  # what the parse freed, back to the system
            continue
        datas.append(result.data)
        todo.append(i)
    try:
        parsed: list[ParsedLines | str] = list(parse_many(datas, keep))
    except Exception:  # one bad file must not take its batch with it: parse each alone
        parsed = [_parse_one(data, keep) for data in datas]
    for i, p in zip(todo, parsed, strict=True):
        _attach(results[i], p)
    return results  # type: ignore[return-value]


def _attach(result: Parsed | None, parsed: ParsedLines | str) -> None:
    assert result is not None
    if isinstance(parsed, str):
        result.error = parsed
    else:
        result.parsed = parsed
        result.problems = result.problems + parsed.problems


def _parse_one(data: bytes, keep: Keep | None) -> ParsedLines | str:
    try:
        return parse_lines(data, keep)
    except MemoryError:
        return "out of memory while parsing; not analyzed"
    except Exception as exc:  # a parser bug must not stop the run: name the file and the error
        return f"the parser failed ({exc_text(exc)}); not analyzed"


def classify_table(
    table: pa.Table, rules: RuleSet, timeout: float, ends: np.ndarray | None = None
) -> tuple[pa.Table, list[str]]:
    """Add :data:`FINDING_COLUMNS` and ``benign`` to a parsed table (of several sources, each
    ending at the rows ``ends``)."""
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
        _benign_continuations(table, benign, np.array([n]) if ends is None else ends)
    table = table.append_column("benign", pa.array(benign))
    return table, list(result.problems)


def _benign_continuations(table: pa.Table, benign: np.ndarray, ends: np.ndarray) -> None:
    """A harmless warning's continuation lines are harmless too: the level-less lines it took
    as its ``detail`` (TensorFlow's ``Additional GRPC error information from remote target``
    and the peer's status after an error it says it ignored) are also events of their own,
    and whatever rule they match, they say no more than the warning did. Sets ``benign``."""
    heads = np.flatnonzero(benign)
    if not len(heads):
        return
    fmt = table["format"].take(pa.array(heads)).to_pylist()
    detail = table["detail"].take(pa.array(heads)).to_pylist()
    line_no = table["line_no"].to_numpy(zero_copy_only=False)
    plain = table["format"].to_pylist()
    message = table["message"]
    file_end = ends[np.searchsorted(ends, heads, side="right")]
    for head, kind, text, end in zip(heads.tolist(), fmt, detail, file_end.tolist(), strict=True):
        if not text or kind not in CONTINUED_FORMATS:
            continue
        last = line_no[head] + text.count("\n") + 1
        row = head + 1
        while row < end and line_no[row] <= last and plain[row] in (None, "plain"):
            if _OWN_RECORD.search(message[row].as_py() or ""):
                break  # a record of a format no rule parses (its time, its level): its own
            benign[row] = True
            row += 1


#: A level-less line that is a record of its own after all: it starts with a time or a date,
#: or names a level (``[0824 14:30:39 @input_source.py:204] ERR Deadline exceeded ...``).
_OWN_RECORD = re.compile(r"^\s*\[?\d|\b(?:ERR|ERROR|FATAL|CRITICAL|WARN|WARNING)\b")


def exc_text(exc: BaseException) -> str:
    return f"{exc.__class__.__name__}: {str(exc)[:200]}"


def captures_of(text: str | None) -> dict[str, str]:
    """The captures column's JSON text → dict."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
