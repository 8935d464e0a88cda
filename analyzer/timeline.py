"""Stage 4: the timeline — every event of every node in one time-sorted Arrow table.

Columns (:data:`SCHEMA`):

============  =====================  =====================================================
``ts``        timestamp[ns, UTC]     when the event happened, in UTC (null if nothing tells)
``ts_origin`` string                 ``parsed`` (date and time in the line), ``epoch``
                                     (absl ``I0000 00:00:<epoch>``), ``wrapper`` (container
                                     runtime's timestamp), ``year_inferred`` (absl ``MMDD``),
                                     ``inherited`` (no time of its own: the previous event's),
                                     ``none``
``node``      string                 ``<job>:<index>``, or the file's stem when nothing tells
``job``       string                 ``worker``, ``ps``, ``chief``, ... (null if unknown)
``task_index``int32                  the task index (null if unknown)
``host``      string                 host of the address the task served on, if known
``file``      string                 file name relative to the input (``bundle.zip!member``)
``line_no``   int64                  first line of the event in its file (1-based)
``line_end``  int64                  last line (> ``line_no`` for tracebacks, stack traces)
``level``     string                 ``DEBUG`` / ``INFO`` / ``WARNING`` / ``ERROR`` / ``FATAL``
``source``    string                 ``master.cc:221`` for C++ lines
``pid``       int64                  process id, if the line tells it
``thread``    string                 thread id (absl/glog lines)
``logger``    string                 Python logger name (``tensorflow``, ``absl``, ...)
``message``   string                 the text after the line's prefix; for a traceback, the
                                     exception line (``...errors_impl.UnavailableError: ...``)
``detail``    string                 the lines of a multi-line event, joined by ``\\n``
``format``    string                 the line format (see :mod:`analyzer.formats`)
``wrapper``   string                 container/launcher prefix (``k8s_cri``, ``mpirun``, ...)
``stream``    string                 ``stdout`` / ``stderr`` when a wrapper tells it
``raw``       string                 the untouched text of the line(s)
``pattern_id``string                 the rule that matched the event (null: none did)
``category``  string                 its taxonomy category (shared/taxonomy.md)
``severity``  string                 ``info`` / ``warning`` / ``error`` / ``fatal``
``blames``    string                 the peer (task or address) the rule says is responsible
``captures``  string                 JSON object of the rule's named groups
``benign``    bool                   the rule marks a harmless line (no finding)
``repeats``   int64                  how many events of its kind this row stands for: 1, or
                                     more where a condensed ingest left out the events that
                                     repeated its template (see :class:`analyzer.formats.Keep`)
============  =====================  =====================================================
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from analyzer.identity import rotation_of

_S = pa.large_string()
SCHEMA = pa.schema(
    [
        ("ts", pa.timestamp("ns", tz="UTC")),
        ("ts_origin", _S),
        ("node", _S),
        ("job", _S),
        ("task_index", pa.int32()),
        ("host", _S),
        ("file", _S),
        ("line_no", pa.int64()),
        ("line_end", pa.int64()),
        ("level", _S),
        ("source", _S),
        ("pid", pa.int64()),
        ("thread", _S),
        ("logger", _S),
        ("message", _S),
        ("detail", _S),
        ("format", _S),
        ("wrapper", _S),
        ("stream", _S),
        ("raw", _S),
        ("pattern_id", _S),
        ("category", _S),
        ("severity", _S),
        ("blames", _S),
        ("captures", _S),
        ("benign", pa.bool_()),
        ("repeats", pa.int64()),
    ]
)


def empty_table() -> pa.Table:
    """A timeline with no rows."""
    return SCHEMA.empty_table()


_TS = pa.timestamp("ns", tz="UTC")
_NAIVE = pa.timestamp("ns")


def _stamp(text: pa.Array) -> pa.Array:
    """``YYYY-MM-DD HH:MM:SS[.,]fraction`` → naive timestamp[ns]; null where it is not one."""
    secs = pc.strptime(
        pc.utf8_slice_codeunits(text, 0, 19),
        format="%Y-%m-%d %H:%M:%S",
        unit="ns",
        error_is_null=True,
    )
    frac = pc.utf8_slice_codeunits(text, 20, 29)
    frac = pc.if_else(pc.match_substring_regex(frac, r"^\d+$"), frac, pa.scalar("0", frac.type))
    nanos = pc.cast(pc.utf8_rpad(frac, 9, "0"), pa.int64())
    return pc.add(secs, pc.cast(nanos, pa.duration("ns")))


def _zoned(text: pa.Array) -> pa.Array:
    """ISO 8601 text with a zone → UTC timestamps (null where it does not parse)."""
    try:
        return pc.cast(text, _TS)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        values = pd.to_datetime(
            pd.Series(text.to_pylist(), dtype=object), utc=True, errors="coerce", format="ISO8601"
        )
        return pa.array(values, _TS, from_pandas=True)


def _epoch(time: pa.Array) -> pa.Array:
    """absl ``00:00:<seconds>.<fraction>`` → UTC timestamps."""
    parts = pc.extract_regex(time, r"^00:00:(?P<s>\d{1,12})(?:\.(?P<f>\d{1,9}))?$")
    seconds = pc.cast(pc.if_else(parts.is_valid(), parts.field("s"), None), pa.int64())
    frac = pc.if_else(pc.equal(parts.field("f"), ""), pa.scalar("0", pa.string()), parts.field("f"))
    nanos = pc.cast(pc.utf8_rpad(frac, 9, "0"), pa.int64())
    total = pc.add(pc.multiply(seconds, 1_000_000_000), nanos)
    return pc.cast(total, pa.int64()).cast(_TS)


def _space(*parts: pa.Array | str) -> pa.Array:
    return pc.binary_join_element_wise(*parts, "")


def resolve_times(
    parts: pa.Table, *, year_hint: int, tz: str | None
) -> tuple[pa.Array, pa.Array, dict[str, str]]:
    """Turn a parsed table's time parts into UTC timestamps and their origin.

    Lines without a zone are the node's local time ``tz`` (UTC when None). A year-less absl
    time takes the year most common among the file's dated lines, else ``year_hint``.
    Lines with no time inherit the previous line's. Returns (ts, ts_origin, notes) where
    notes say which year and zone were assumed. All column-wise (pyarrow compute).
    """
    groups = np.zeros(parts.num_rows, dtype=np.int64)
    ts, origin, notes = resolve_times_of(parts, groups, np.array([year_hint]), tz)
    return ts, origin, notes[0]


def resolve_times_of(
    parts: pa.Table, groups: np.ndarray, year_hints: np.ndarray, tz: str | None
) -> tuple[pa.Array, pa.Array, list[dict[str, str]]]:
    """:func:`resolve_times` for the rows of many files at once: ``groups`` numbers each row's
    file (0, 1, …, in row order, each file's rows together), ``year_hints`` is per file. What
    is per file (the year of year-less times, inheriting a time) stays within each file.
    Returns the notes per file."""
    n = parts.num_rows
    count = len(year_hints)
    notes: list[dict[str, str]] = [{} for _ in range(count)]
    nulls = pa.nulls(n, _TS)

    def col(name: str) -> pa.Array:
        return parts[name].combine_chunks().cast(pa.string())

    wts, date, time, zone, md = col("wts"), col("date"), col("time"), col("tz"), col("md")
    from_wrapper = _zoned(wts) if wts.null_count < n else nulls
    time_dot = pc.replace_substring(time, ",", ".")
    if date.null_count < n and pc.any(pc.match_substring(date, "/")).as_py():
        # log4j's two-digit year (yy/MM/dd, Spark's default): this century's
        date = pc.replace_substring_regex(date, r"^(\d\d)/(\d\d)/(\d\d)$", r"20\1-\2-\3")
    dated_local = (
        _stamp(_space(date, " ", time_dot)) if date.null_count < n else pa.nulls(n, _NAIVE)
    )
    has_zone = pc.is_valid(zone)
    zoned = (
        _zoned(pc.if_else(has_zone, _space(date, "T", time_dot, zone), None))
        if zone.null_count < n
        else nulls
    )
    dated_local = pc.if_else(has_zone, pa.scalar(None, _NAIVE), dated_local)
    is_epoch = pc.fill_null(pc.equal(md, "0000"), False)
    epoch = _epoch(pc.if_else(is_epoch, time, None)) if pc.any(is_epoch).as_py() else nulls

    yearless_rows = pc.and_(pc.is_valid(md), pc.invert(is_epoch))
    yearless_local = pa.nulls(n, _NAIVE)
    yearless = _bool(yearless_rows)
    if yearless.any():
        known = pc.coalesce(from_wrapper, zoned, epoch, pc.cast(dated_local, _TS))
        known_years = pc.fill_null(pc.year(known), 0).to_numpy(zero_copy_only=False)
        plausible = (known_years > 1980) & (known_years < 2200)
        year_of = np.asarray(year_hints, dtype=np.int64).copy()
        for g in np.unique(groups[yearless]).tolist():
            years = known_years[(groups == g) & plausible]
            if len(years):
                values, counts = np.unique(years, return_counts=True)
                best = counts.max()  # the most common; a tie: the first met in the file
                year_of[g] = next(y for y in years.tolist() if counts[values == y][0] == best)
                notes[g]["year"] = f"{year_of[g]}, from the file's own dated lines"
            else:
                notes[g]["year"] = f"{year_of[g]}, from the file's date or --year"
        year_text = pa.array(year_of.astype(str)[groups], pa.string())
        text = _space(
            year_text,
            "-",
            pc.utf8_slice_codeunits(md, 0, 2),
            "-",
            pc.utf8_slice_codeunits(md, 2, 4),
            " ",
            time,
        )
        yearless_local = pc.if_else(yearless_rows, _stamp(text), pa.scalar(None, _NAIVE))

    local = pc.coalesce(dated_local, yearless_local)
    if local.null_count < n:
        for g in np.unique(groups[_bool(pc.is_valid(local))]).tolist():
            notes[g]["tz"] = tz if tz else "UTC (assumed; lines carry no zone: use --tz)"
        local_utc = pc.assume_timezone(
            local, tz or "UTC", ambiguous="earliest", nonexistent="earliest"
        ).cast(_TS)
    else:
        local_utc = nulls

    ts = pc.coalesce(from_wrapper, zoned, epoch, local_utc)
    origin = pc.case_when(
        pc.make_struct(
            pc.is_valid(from_wrapper),
            pc.is_valid(zoned),
            pc.is_valid(epoch),
            pc.is_valid(pc.if_else(pc.is_valid(dated_local), local_utc, None)),
            pc.is_valid(local_utc),
        ),
        "wrapper",
        "parsed",
        "epoch",
        "parsed",
        "year_inferred",
    ).cast(_S)
    if ts.null_count == 0:
        return ts, origin, notes
    # no time of its own: the previous line's (the next line's before a file's first time);
    # a file with no time at all keeps none ("none")
    timed = _bool(pc.is_valid(ts))
    index = np.arange(n)
    starts = np.r_[0, np.flatnonzero(np.diff(groups)) + 1] if n else np.zeros(0, np.int64)
    first_row = np.repeat(starts, np.diff(np.r_[starts, n]))
    last_row = np.repeat(np.r_[starts[1:], n] - 1, np.diff(np.r_[starts, n]))
    before = np.maximum.accumulate(np.where(timed, index, -1))
    after = np.minimum.accumulate(np.where(timed, index, n)[::-1])[::-1]
    source = np.where(before >= first_row, before, np.where(after <= last_row, after, -1))
    none = source < 0
    filled = pc.take(ts, pa.array(np.where(none, 0, source)))
    ts = pc.if_else(pa.array(none), pa.scalar(None, _TS), filled)
    origin = pc.if_else(
        pa.array(timed), origin, pc.if_else(pa.array(none), "none", pa.scalar("inherited", _S))
    )
    return ts, origin.cast(_S), notes


def _bool(array) -> np.ndarray:
    return np.asarray(pc.fill_null(array, False).to_numpy(zero_copy_only=False), dtype=bool)


def inherit_file_times(table: pa.Table) -> pa.Table:
    """Events with no time that share a file with timed events of other sources take the time
    of the nearest line before them in that file with a time of its own (the line after,
    before the file's first time): a launcher's own lines in its merged output (honcho's ``HH:MM:SS system |``
    lines carry no date) happened where they stand among its processes' timed lines.
    ``ts_origin`` says ``inherited``; a file with no time at all keeps none."""
    ts = table["ts"]
    if table.num_rows == 0 or ts.null_count in (0, table.num_rows):
        return table
    files = pc.dictionary_encode(pc.fill_null(table["file"], "")).combine_chunks()
    codes = files.indices.to_numpy(zero_copy_only=False)
    lines = pc.fill_null(table["line_no"], 0).to_numpy(zero_copy_only=False)
    order = np.lexsort((lines, codes))
    valid = np.asarray(ts.is_valid(), dtype=bool)
    # (only a line's own time: one inherited within its source may be far behind the file's)
    own = valid & ~np.asarray(
        pc.fill_null(pc.equal(table["ts_origin"], "inherited"), False), dtype=bool
    )
    timed, valid = own[order], valid[order]
    code = codes[order]
    n = len(order)
    index = np.arange(n)
    before = np.maximum.accumulate(np.where(timed, index, -1))
    after = np.minimum.accumulate(np.where(timed, index, n)[::-1])[::-1]
    src = np.where(
        (before >= 0) & (code[np.maximum(before, 0)] == code),
        before,
        np.where((after < n) & (code[np.minimum(after, n - 1)] == code), after, -1),
    )
    fill = ~valid & (src >= 0)
    if not fill.any():
        return table
    take = np.arange(table.num_rows)
    take[order[fill]] = order[src[fill]]
    filled = np.zeros(table.num_rows, dtype=bool)
    filled[order[fill]] = True
    mask = pa.array(filled)
    new_ts = pc.if_else(mask, pc.take(ts, pa.array(take)), ts)
    origin = pc.if_else(
        mask, pa.scalar("inherited", table.schema.field("ts_origin").type), table["ts_origin"]
    )
    table = table.set_column(table.schema.get_field_index("ts"), "ts", new_ts)
    return table.set_column(table.schema.get_field_index("ts_origin"), "ts_origin", origin)


def sort_timeline(table: pa.Table) -> pa.Table:
    """Sort by time; events with equal times stay in node, file and line order, the pieces of
    a rotated log oldest first (``x.log.2``, ``x.log.1``, ``x.log``: lines with no time of
    their own carry their piece's last time, and a later piece's lines come after it)."""
    if table.num_rows == 0:
        return table
    table = inherit_file_times(table)
    files = pc.dictionary_encode(pc.fill_null(table["file"], "")).combine_chunks()
    pieces = [rotation_of(n) for n in files.dictionary.to_pylist()]
    # per distinct file, its place among the others: by name, a rotated log's pieces oldest first
    rank = np.argsort(np.lexsort(([-n for _, n in pieces], [b for b, _ in pieces])))
    by_piece = pa.array(rank[files.indices.to_numpy(zero_copy_only=False)], pa.int64())
    keyed = pa.table(
        {"ts": table["ts"], "node": table["node"], "piece": by_piece, "line": table["line_no"]}
    )
    keys = [(name, "ascending", "at_end") for name in ("ts", "node", "piece", "line")]
    return table.take(pc.sort_indices(keyed, sort_keys=keys))


def to_pandas(table: pa.Table) -> pd.DataFrame:
    """The timeline as a pandas DataFrame with Arrow-backed columns."""
    return table.to_pandas(types_mapper=pd.ArrowDtype)


def write_parquet(table: pa.Table | pd.DataFrame, path: str | Path) -> None:
    """Write a timeline to Parquet (zstd-compressed).

    A ``path`` that is a folder (or ends with ``/``) gets a Hive-partitioned dataset, one
    partition per job (``job=worker/…``), which DuckDB, Spark and pyarrow.dataset read as one table.
    """
    if isinstance(table, pd.DataFrame):
        table = pa.Table.from_pandas(table, schema=SCHEMA, preserve_index=False)
    table = table.cast(SCHEMA)
    if str(path).endswith("/") or Path(path).is_dir():
        pq.write_to_dataset(
            table,
            str(path),
            partition_cols=["job"],
            compression="zstd",
            existing_data_behavior="delete_matching",
        )
        return
    pq.write_table(table, path, compression="zstd")


def write_parquet_batches(tables: Iterable[pa.Table], path: str | Path) -> int:
    """Write a timeline that comes in pieces (see ``analyzer.ingest.ingest(output=...)``)
    to Parquet as :func:`write_parquet` does, one piece at a time; returns the rows written.

    Each piece becomes its own row groups, in the order given: the file is in time order
    within each piece, not across them (:func:`read_parquet` sorts; so does ``ORDER BY ts``).
    """
    tables = (t.cast(SCHEMA) for t in tables)
    written = 0

    def counted() -> Iterator[pa.RecordBatch]:
        nonlocal written
        for table in tables:
            written += table.num_rows
            yield from table.to_batches()

    if str(path).endswith("/") or Path(path).is_dir():
        import pyarrow.dataset as ds

        ds.write_dataset(
            pa.RecordBatchReader.from_batches(SCHEMA, counted()),
            str(path),
            format="parquet",
            partitioning=["job"],
            partitioning_flavor="hive",
            existing_data_behavior="delete_matching",
            file_options=ds.ParquetFileFormat().make_write_options(compression="zstd"),
        )
        return written
    with pq.ParquetWriter(str(path), SCHEMA, compression="zstd") as writer:
        for table in tables:
            written += table.num_rows
            writer.write_table(table)
    return written


def read_parquet(path: str | Path) -> pd.DataFrame:
    """Read a timeline written by :func:`write_parquet` (or ``tfdiag ingest``), file or folder."""
    if Path(path).is_dir():
        import pyarrow.dataset as ds

        table = ds.dataset(str(path), format="parquet", partitioning="hive").to_table()
        table = _complete(table.cast(pa.schema([SCHEMA.field(n) for n in table.column_names])))
        return to_pandas(sort_timeline(table).select(SCHEMA.names))
    return to_pandas(sort_timeline(_complete(pq.read_table(path))))


def _complete(table: pa.Table) -> pa.Table:
    """A timeline written before a column existed, with that column's default (``repeats`` 1)."""
    for f in SCHEMA:
        if f.name not in table.column_names:
            fill = pa.repeat(1, table.num_rows) if f.name == "repeats" else None
            table = table.append_column(f, fill or pa.nulls(table.num_rows, f.type))
    return table
