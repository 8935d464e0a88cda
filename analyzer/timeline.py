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
============  =====================  =====================================================
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

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
    ]
)


def empty_table() -> pa.Table:
    """A timeline with no rows."""
    return SCHEMA.empty_table()


def _to_datetime(values: pd.Series, **kw) -> pd.Series:
    return pd.to_datetime(values, errors="coerce", format="ISO8601", **kw)


def resolve_times(
    parts: pa.Table, *, year_hint: int, tz: str | None
) -> tuple[pa.Array, pa.Array, dict[str, str]]:
    """Turn a parsed table's time parts into UTC timestamps and their origin.

    Lines without a zone are the node's local time ``tz`` (UTC when None). A year-less absl
    time takes the year most common among the file's dated lines, else ``year_hint``.
    Lines with no time inherit the previous line's. Returns (ts, ts_origin, notes) where
    notes say which year and zone were assumed.
    """
    n = parts.num_rows
    ts = pd.Series(pd.NaT, index=range(n), dtype="datetime64[ns, UTC]")
    origin = np.full(n, None, dtype=object)
    naive = pd.Series(pd.NaT, index=range(n), dtype="datetime64[ns]")
    notes: dict[str, str] = {}

    def col(name: str) -> pd.Series:
        return parts[name].to_pandas().astype(object).where(lambda s: s.notna(), None)

    wts = col("wts")
    has = wts.notna()
    if has.any():
        ts[has] = _to_datetime(wts[has], utc=True)
        origin[has.to_numpy() & ts.notna().to_numpy()] = "wrapper"

    date, time, tzs = col("date"), col("time"), col("tz")
    dated = date.notna() & ts.isna()
    if dated.any():
        stamp = date[dated] + " " + time[dated].str.replace(",", ".", regex=False)
        with_zone = tzs[dated].notna()
        if with_zone.any():
            zoned = stamp[with_zone] + tzs[dated][with_zone]
            ts[zoned.index] = _to_datetime(zoned, utc=True)
            origin[zoned.index] = "parsed"
        plain = stamp[~with_zone]
        naive[plain.index] = _to_datetime(plain)
        origin[plain.index] = "parsed"

    md = col("md")
    absl = md.notna() & ts.isna()
    if absl.any():
        epoch_rows = absl & (md == "0000")
        if epoch_rows.any():
            seconds = pd.to_numeric(time[epoch_rows].str.slice(6), errors="coerce")
            ts[epoch_rows[epoch_rows].index] = pd.to_datetime(
                seconds, unit="s", utc=True, errors="coerce"
            )
            origin[epoch_rows.to_numpy()] = "epoch"
        dated_years = pd.concat([naive.dropna().dt.year, ts.dropna().dt.year])
        dated_years = dated_years[(dated_years > 1980) & (dated_years < 2200)]
        if len(dated_years):
            year = int(Counter(dated_years.tolist()).most_common(1)[0][0])
            notes["year"] = f"{year}, from the file's own dated lines"
        else:
            year = year_hint
            notes["year"] = f"{year}, from the file's date or --year"
        yearless = absl & (md != "0000")
        if yearless.any():
            stamp = (
                str(year)
                + "-"
                + md[yearless].str.slice(0, 2)
                + "-"
                + md[yearless].str.slice(2, 4)
                + " "
                + time[yearless]
            )
            naive[stamp.index] = _to_datetime(stamp)
            origin[yearless.to_numpy()] = "year_inferred"

    local = naive.notna()
    if local.any():
        zone = tz or "UTC"
        notes["tz"] = zone if tz else "UTC (assumed; lines carry no zone: use --tz)"
        converted = naive[local].dt.tz_localize(zone, ambiguous="NaT", nonexistent="shift_forward")
        ts[local] = converted.dt.tz_convert("UTC")
    origin[(ts.isna() & pd.Series(origin != None)).to_numpy()] = None  # noqa: E711  (unparseable)

    missing = ts.isna().to_numpy()
    if missing.all():
        origin[:] = "none"
    elif missing.any():
        filled = ts.ffill().bfill()
        origin[missing] = "inherited"
        ts = filled
    ts_arr = pa.array(ts.array.asi8, pa.int64()).cast(pa.timestamp("ns", tz="UTC"))
    ts_arr = pc.if_else(pa.array(ts.isna().to_numpy()), pa.scalar(None, ts_arr.type), ts_arr)
    return ts_arr, pa.array(origin.tolist(), _S), notes


def sort_timeline(table: pa.Table) -> pa.Table:
    """Sort by time; events with equal times stay in node, file and line order."""
    if table.num_rows == 0:
        return table
    keys = [(name, "ascending", "at_end") for name in ("ts", "node", "file", "line_no")]
    order = pc.sort_indices(table, sort_keys=keys)
    return table.take(order)


def to_pandas(table: pa.Table) -> pd.DataFrame:
    """The timeline as a pandas DataFrame with Arrow-backed columns."""
    return table.to_pandas(types_mapper=pd.ArrowDtype)


def write_parquet(table: pa.Table | pd.DataFrame, path: str | Path) -> None:
    """Write a timeline to Parquet (zstd-compressed)."""
    if isinstance(table, pd.DataFrame):
        table = pa.Table.from_pandas(table, schema=SCHEMA, preserve_index=False)
    pq.write_table(table.cast(SCHEMA), path, compression="zstd")


def read_parquet(path: str | Path) -> pd.DataFrame:
    """Read a timeline written by :func:`write_parquet` (or ``tfdiag ingest``)."""
    return to_pandas(pq.read_table(path))
