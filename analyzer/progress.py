"""Training progress per node: the steps, epochs and step times each node's log reports.

Read from the messages of the timeline with one table of templates (:data:`TEMPLATES`, data,
RE2 syntax), all column-wise: one RE2 prefilter (:data:`PREFILTER`) picks the candidate rows,
``pyarrow.compute.extract_regex`` pulls each template's numbers out of them, and per-node
differences (pandas group-by) give the rate between reports.

The result (:func:`progress_of`) is one row per progress report:

=================  =========================================================================
``node``           the node that reported it
``ts``             its time (UTC); see ``timed``
``step``           the step number it reports (global step where the line says so; for a
                   Keras progress bar ``(epoch - 1) * steps_per_epoch + batch``), or NaN
``epoch``          the epoch it belongs to (Keras ``Epoch 3/10``, ``epoch 3`` in a line), or NaN
``rate``           steps per second: as reported (``global_step/sec: 12.3``), else the
                   step difference over the time difference to the node's previous report
``step_time_s``    seconds per step: as reported (``5ms/step``, ``step time 0.5 s``), else
                   ``1 / rate``
``source``         which template matched (:data:`TEMPLATES`)
``timed``          the line carries a time of its own (Keras progress bars do not: they
                   inherit the previous timed line's)
``row``            the event's row in the timeline (for evidence)
``file``, ``line_no``  where it was logged
``total``          the step count the line says it runs to (``step 3/200``, ``20/20``)
=================  =========================================================================

The condensed ingest of ``tfdiag analyze`` keeps the lines that match :data:`KEEP_PATTERN`,
downsampled per file (first, last and evenly spaced runs: see :class:`analyzer.formats.Keep`),
so the series is coarser there but spans the same time.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

#: What a progress line looks like, in order of precedence (the first that matches wins).
#: Each: (source, RE2 pattern with named groups). Groups: ``step``, ``total``, ``epoch``,
#: ``epochs``, ``time`` + ``unit`` (a step time), ``rate`` (steps per second).
#: Progress-bar control characters (ANSI colours, backspaces) are removed before matching.
TEMPLATES: tuple[tuple[str, str], ...] = (
    # Keras: "Epoch 3/10" before each epoch's bar
    ("keras_epoch", r"^\s*Epoch (?P<epoch>\d+)/(?P<epochs>\d+)\s*$"),
    # Keras 3 bar "20/20 ━━━━ 1s 5ms/step - loss: 0.1", verbose=2 "20/20 - 0s - 2ms/step",
    # tf.keras "100/100 [=====] - 1s 5ms/step - loss: 0.1", "  7/Unknown ..."
    (
        "keras_progbar",
        r"^\s*(?P<step>\d+)/(?P<total>\d+|Unknown)\s+(?:━|\[[=>.]*\]|-\s)"
        r"(?:.*?\s(?P<time>\d+(?:\.\d+)?)(?P<unit>s|ms|us|µs)/step\b)?",
    ),
    # TF1 StepCounterHook: "global_step/sec: 12.3"
    ("tf1_step_rate", r"\bglobal_step/sec: (?P<rate>[-+0-9.eE]+|inf)"),
    # TF1 LoggingTensorHook / Estimator: "loss = 0.12, step = 100 (0.512 sec)"
    ("tf1_tensors", r"\bstep = (?P<step>\d+)\b(?:[^(]*\((?P<elapsed>\d+(?:\.\d+)?) sec\))?"),
    # TF1 CheckpointSaverHook: "Saving checkpoints for 100 into /tmp/model.ckpt."
    ("checkpoint", r"\bSaving checkpoints for (?P<step>\d+) into\b"),
    # scripts' own lines: "step 3/200 loss 0.5", "worker 0 global_step 12 loss 0.1",
    # "Step 100: loss=0.3 (0.21 s/step)" -- a step number with a metric or a time beside it;
    # the step that says its count first ("local step 21 global step 20/60": 20 of 60)
    (
        "step_line",
        r"(?i)\b(?:global[_ ]?)?step\b[\s:=#]*(?P<step>\d+)\s*(?:/|of)\s*(?P<total>\d+)"
        r"\b.*(?:loss|acc|metric|\bsec\b|\d\s*m?s\b|took|time|duration|/s\b|examples|samples"
        r"|images)",
    ),
    (
        "step_line",
        r"(?i)\b(?:global[_ ]?)?step\b[\s:=#]*(?P<step>\d+)(?:\s*(?:/|of)\s*(?P<total>\d+))?"
        r"\b.*(?:loss|acc|metric|\bsec\b|\d\s*m?s\b|took|time|duration|/s\b|examples|samples"
        r"|images)",
    ),
    # tf_cnn_benchmarks (tensorflow/benchmarks, the common distributed TF benchmark): its step
    # table's rows "10\timages/sec: 215.6 +/- 0.3 (jitter = 1.3)\t7.295"
    ("benchmark_row", r"^\s*(?P<step>\d+)\s+images/sec:\s*\d"),
    # a script's own step timing without a step number: "step time 0.52 s", "0.5 sec/step"
    (
        "step_time",
        r"(?i)(?:\bstep[_ ]time\b[\s:=]*(?P<time>\d+(?:\.\d+)?)\s*(?P<unit>ms|s|sec|us)?"
        r"|(?P<time2>\d+(?:\.\d+)?)\s*(?P<unit2>ms|s|sec|us)\s*/\s*(?:step|it|iter|batch)\b)",
    ),
    # throughput lines: "12.3 steps/sec", "4.5 it/s"
    ("step_rate", r"(?i)(?P<rate>\d+(?:\.\d+)?)\s*(?:steps|it|iters|batches)\s*/\s*s(?:ec)?\b"),
)

#: Extra numbers read from any progress line (when its template has no such group).
EXTRAS: tuple[tuple[str, str], ...] = (
    ("epoch", r"(?i)\bepoch\b[\s:=#]*(?P<epoch>\d+)"),
    ("time", r"(?P<time>\d+(?:\.\d+)?)\s*(?P<unit>ms|s|sec|us)\s*/\s*(?:step|it|iter|batch)\b"),
    ("time", r"(?i)\bstep[_ ]time\b[\s:=]*(?P<time>\d+(?:\.\d+)?)\s*(?P<unit>ms|s|sec|us)?"),
    ("time", r"(?i)\bstep\b[^,;]*?\btook\s*(?P<time>\d+(?:\.\d+)?)\s*(?P<unit>ms|s|sec|us)?"),
    ("rate", r"(?i)(?P<rate>\d+(?:\.\d+)?)\s*(?:steps|it|iters|batches)\s*/\s*s(?:ec)?\b"),
    # a duration in parentheses after the step: "step 3/200 loss 0.5 (0.117 s)" -- what the
    # script timed for its step(s); the same script on every node times the same thing
    ("time", r"\bstep\b.*\((?P<time>\d+(?:\.\d+)?)\s*(?P<unit>ms|s|sec|seconds)\)"),
)

#: One RE2 alternation that every progress line matches (cheap first pass; case-insensitive).
PREFILTER = (
    r"(?i)step|epoch\s+\d|^\s*\d+/(?:\d+|unknown)\s|\d\s*it/s|checkpoints for \d"
    r"|^\s*\d+\s+images/sec:"
)

#: What the condensed ingest keeps as progress (see :class:`analyzer.formats.Keep`).
KEEP_PATTERN = (
    r"\bstep\b[\s:=#]*\d|global_step|step[ _]time|/step\b|steps?/s|^\s*epoch \d+/\d+"
    r"|saving checkpoints for \d|^(?:\x1b\[[0-9;]*m|\x08|\s)*\d+/(?:\d+|unknown)\s"
    r"|^\s*\d+\s+images/sec:"
)

_CONTROL = r"\x1b\[[0-9;]*[A-Za-z]|[\x08\r]"
_UNIT = {"s": 1.0, "sec": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6}
COLUMNS = [
    "node",
    "ts",
    "step",
    "epoch",
    "rate",
    "step_time_s",
    "source",
    "timed",
    "row",
    "file",
    "line_no",
    "total",
]
_OWN_TIME = ("parsed", "epoch", "wrapper", "year_inferred")


def empty() -> pd.DataFrame:
    """A progress frame with no rows (the columns of :func:`progress_of`)."""
    frame = pd.DataFrame({c: [] for c in COLUMNS})
    return _types(frame)


def _types(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    out["ts"] = pd.to_datetime(out["ts"], utc=True)
    for c in ("step", "epoch", "rate", "step_time_s", "total"):
        out[c] = pd.to_numeric(out[c], errors="coerce").astype(float)
    out["timed"] = out["timed"].astype(bool)
    for c in ("node", "source", "file"):
        out[c] = out[c].astype(object)
    out["row"] = out["row"].astype("int64")
    out["line_no"] = pd.to_numeric(out["line_no"], errors="coerce").astype("Int64")
    return out[COLUMNS]


def _arrow(series: pd.Series) -> pa.Array:
    array = series.array
    data = getattr(array, "_pa_array", None)
    if data is None:
        data = pa.array(series.astype(object).where(series.notna(), None), pa.large_string())
    if isinstance(data, pa.ChunkedArray):
        data = data.combine_chunks() if data.num_chunks != 1 else data.chunk(0)
    return data


def _utc_times(series: pd.Series) -> pd.DatetimeIndex:
    """A timestamp column (Arrow-backed or numpy, zone or none) as UTC, without a Python loop."""
    data = getattr(series.array, "_pa_array", None)
    if data is not None and pa.types.is_timestamp(data.type):
        values = data.to_pandas()
        out = pd.DatetimeIndex(values)
    else:
        out = pd.DatetimeIndex(pd.to_datetime(series, utc=True, errors="coerce"))
    return out.tz_localize("UTC") if out.tz is None else out.tz_convert("UTC")


def _number(parts: pa.StructArray, name: str) -> np.ndarray:
    if name not in [parts.type.field(i).name for i in range(parts.type.num_fields)]:
        return np.full(len(parts), np.nan)
    text = parts.field(name)
    text = pc.if_else(pc.equal(text, ""), pa.scalar(None, text.type), text)
    text = pc.if_else(parts.is_valid(), text, pa.scalar(None, text.type))
    number = pc.cast(text, pa.float64(), safe=False) if _castable(text) else None
    if number is None:
        return pd.to_numeric(pd.Series(text.to_pylist()), errors="coerce").to_numpy(float)
    return number.to_numpy(zero_copy_only=False).astype(float)


def _castable(text: pa.Array) -> bool:
    try:
        pc.cast(text, pa.float64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return False
    return True


def _text(parts: pa.StructArray, name: str) -> np.ndarray:
    names = [parts.type.field(i).name for i in range(parts.type.num_fields)]
    if name not in names:
        return np.full(len(parts), None, dtype=object)
    text = pc.if_else(parts.is_valid(), parts.field(name), pa.scalar(None, pa.string()))
    return np.array(text.to_pylist(), dtype=object)


def _seconds(value: np.ndarray, unit: np.ndarray) -> np.ndarray:
    scale = pd.Series(unit, dtype=object).map(_UNIT).fillna(1.0).to_numpy(dtype=float)
    return value * scale


def progress_of(timeline: pd.DataFrame) -> pd.DataFrame:
    """The progress reports of every node (columns: see the module doc), sorted by node, time."""
    if timeline is None or timeline.empty or "message" not in timeline:
        return empty()
    messages = _arrow(timeline["message"])
    hit = pc.fill_null(pc.match_substring_regex(messages, PREFILTER), False)
    rows = np.flatnonzero(hit.to_numpy(zero_copy_only=False))
    if not len(rows):
        return empty()
    text = pc.replace_substring_regex(messages.take(pa.array(rows)), _CONTROL, "")
    text = pc.cast(text, pa.string())
    n = len(rows)
    source = np.full(n, None, dtype=object)
    step = np.full(n, np.nan)
    total = np.full(n, np.nan)
    epoch = np.full(n, np.nan)
    rate = np.full(n, np.nan)
    step_time = np.full(n, np.nan)
    elapsed = np.full(n, np.nan)
    for name, pattern in TEMPLATES:
        free = np.flatnonzero(source == None)  # noqa: E711 (element-wise)
        if not len(free):
            break
        # each template reads only the reports no earlier one claimed
        parts = pc.extract_regex(text if len(free) == n else text.take(pa.array(free)), pattern)
        matched = np.flatnonzero(parts.is_valid().to_numpy(zero_copy_only=False))
        if not len(matched):
            continue
        got = free[matched]
        source[got] = name
        for column, group in ((step, "step"), (total, "total"), (epoch, "epoch"), (rate, "rate")):
            column[got] = _number(parts, group)[matched]
        for tgroup, ugroup in (("time", "unit"), ("time2", "unit2")):
            values = _seconds(_number(parts, tgroup), _text(parts, ugroup))[matched]
            fill = np.isnan(step_time[got]) & ~np.isnan(values)
            step_time[got[fill]] = values[fill]
        elapsed[got] = _number(parts, "elapsed")[matched]
    found = source != None  # noqa: E711
    if not found.any():
        return empty()
    keep = np.flatnonzero(found)
    text = text.take(pa.array(keep))
    rows, source, step, total, epoch, rate, step_time, elapsed = (
        a[keep] for a in (rows, source, step, total, epoch, rate, step_time, elapsed)
    )
    for what, pattern in EXTRAS:
        parts = pc.extract_regex(text, pattern)
        if what == "epoch":
            values, target = _number(parts, "epoch"), epoch
        elif what == "rate":
            values, target = _number(parts, "rate"), rate
        else:
            values = _seconds(_number(parts, "time"), _text(parts, "unit"))
            target = step_time
        fill = np.isnan(target) & ~np.isnan(values)
        target[fill] = values[fill]
    # (only the columns read, each taken alone: a take of every column is not free)
    sub = {
        c: timeline[c].iloc[rows]
        for c in ("node", "ts", "ts_origin", "file", "line_no")
        if c in timeline
    }
    origin = sub["ts_origin"].astype(object).to_numpy() if "ts_origin" in sub else None
    frame = pd.DataFrame(
        {
            "node": sub["node"].astype(object).to_numpy(),
            "ts": _utc_times(sub["ts"]),
            "step": step,
            "epoch": epoch,
            "rate": rate,
            "step_time_s": step_time,
            "source": source,
            "timed": np.isin(origin, _OWN_TIME) if origin is not None else True,
            "row": np.asarray(sub["node"].index, dtype="int64"),
            "file": sub["file"].astype(object).to_numpy() if "file" in sub else None,
            "line_no": sub["line_no"].astype("Int64").to_numpy() if "line_no" in sub else None,
            "total": total,
            "_elapsed": elapsed,
        }
    )
    frame = frame.sort_values(["node", "ts", "file", "line_no"], kind="stable").reset_index(
        drop=True
    )
    return _types(_derive(frame))


def _derive(frame: pd.DataFrame) -> pd.DataFrame:
    """Epochs carried forward, Keras batches made global steps, rates from differences."""
    by = frame.groupby(["node", "file"], sort=False)
    epoch = by["epoch"].ffill()
    frame["epoch"] = epoch
    bar = (frame["source"] == "keras_progbar").to_numpy()
    per_epoch = frame["total"].to_numpy()
    known = bar & ~np.isnan(epoch.to_numpy()) & ~np.isnan(per_epoch)
    frame.loc[known, "step"] = (epoch.to_numpy()[known] - 1) * per_epoch[known] + frame[
        "step"
    ].to_numpy()[known]
    # the Keras "Epoch N/M" line itself is a report of no step
    frame = frame[frame["source"] != "keras_epoch"].reset_index(drop=True)
    if frame.empty:
        return frame.drop(columns="_elapsed")
    stepped = frame[~frame["step"].isna()]
    if not stepped.empty:
        d_step = stepped.groupby(["node", "source"], sort=False)["step"].diff()
        # "(0.512 sec)" of a tensor hook: the time since its previous report, over its steps
        per_step = stepped["_elapsed"] / d_step
        fill = (d_step > 0) & per_step.notna()
        frame.loc[fill[fill].index, "step_time_s"] = per_step[fill]
        reported = stepped["_elapsed"].notna() & ~fill
        frame.loc[reported[reported].index, "step_time_s"] = np.nan
    stepped = frame[~frame["step"].isna() & frame["timed"]]
    if not stepped.empty:
        g = stepped.groupby("node", sort=False)
        d_step = g["step"].diff()
        d_time = g["ts"].diff().dt.total_seconds()
        derived = d_step / d_time
        ok = (d_step > 0) & (d_time > 0)
        fill = ok & frame.loc[stepped.index, "rate"].isna()
        frame.loc[fill[fill].index, "rate"] = derived[fill]
    fill = frame["step_time_s"].isna() & (frame["rate"] > 0)
    frame.loc[fill, "step_time_s"] = 1.0 / frame.loc[fill, "rate"]
    fill = frame["rate"].isna() & (frame["step_time_s"] > 0) & frame["step"].isna()
    frame.loc[fill, "rate"] = 1.0 / frame.loc[fill, "step_time_s"]
    return frame.drop(columns="_elapsed")


def _throughput(progress: pd.DataFrame) -> pd.Series:
    """Per node, steps per second over its whole reporting time (first to last timed report
    with a step): what the job really made, pauses included."""
    rows = progress[
        progress["step"].notna() & progress["timed"] & (progress["source"] != "checkpoint")
    ]
    if rows.empty:
        return pd.Series(dtype=float)
    g = rows.groupby("node")
    span = (g["ts"].max() - g["ts"].min()).dt.total_seconds()
    steps = g["step"].max() - g["step"].min()
    out = steps / span
    return out[(span > 0) & (steps > 0)].astype(float)


def summary(progress: pd.DataFrame) -> pd.DataFrame:
    """One row per node: reports, first/last report, last step, steps per second (over its
    whole reporting time; else the median rate it reports), median step time, median interval
    between its reports."""
    cols = [
        "reports",
        "first",
        "last",
        "last_step",
        "last_step_time",
        "rate",
        "step_time_s",
        "report_interval_s",
        "sources",
    ]
    if progress is None or progress.empty:
        return pd.DataFrame(columns=cols).rename_axis("node")
    g = progress.groupby("node", sort=True)
    timed = progress[progress["timed"]]
    interval = timed.groupby("node")["ts"].diff().dt.total_seconds()
    interval = interval[interval > 0].groupby(timed["node"]).median()
    stepped = progress[progress["step"].notna()]
    last_step = stepped.groupby("node")["step"].max()
    # when the node first reported its highest step: the time its progress stopped
    top = stepped[stepped["step"] == stepped["node"].map(last_step)]
    last_step_time = top.groupby("node")["ts"].min()
    out = pd.DataFrame(
        {
            "reports": g.size(),
            "first": g["ts"].min(),
            "last": g["ts"].max(),
            "last_step": last_step,
            "last_step_time": last_step_time,
            "rate": _throughput(progress).combine_first(g["rate"].median()),
            "step_time_s": g["step_time_s"].median(),
            "report_interval_s": interval,
            "sources": _sources(progress, g.size().index),
        }
    )
    out.index.name = "node"
    return out[cols]


def _sources(progress: pd.DataFrame, nodes: pd.Index) -> pd.Series:
    """Per node (``nodes``, the group-by's keys), its distinct sources sorted and joined by
    commas: from the distinct (node, source) pairs, not one call per node."""
    pairs = progress[["node", "source"]].dropna(subset=["node"]).drop_duplicates()
    joined: dict = {}
    for node, source in sorted(
        zip(pairs["node"].tolist(), pairs["source"].tolist(), strict=True),
        key=lambda p: p[1],
    ):
        joined.setdefault(node, []).append(source)
    return pd.Series([",".join(joined[n]) for n in nodes.tolist()], index=nodes, dtype=object)


#: Points per node in the JSON report's progress series (evenly thinned, last kept).
JSON_POINTS = 200


def to_json(progress: pd.DataFrame) -> dict:
    """The ``progress`` object of the JSON report: per-node summary and a thinned series
    (built from whole columns: one stable sort by node, no group of rows made per node)."""
    summ = summary(progress)
    nodes = []
    columns = [summ.index.tolist()] + [summ[c].tolist() for c in summ.columns]
    times = {c: _iso_list(summ[c]) for c in ("first", "last", "last_step_time")}
    for i, (node, reports, _f, _l, last_step, _lt, rate, step_time, interval, sources) in enumerate(
        zip(*columns, strict=True)
    ):
        nodes.append(
            {
                "node": node,
                "reports": int(reports),
                "first": times["first"][i],
                "last": times["last"][i],
                "last_step": _num(last_step),
                "last_step_time": times["last_step_time"][i],
                "rate": _num(rate),
                "step_time_s": _num(step_time),
                "report_interval_s": _num(interval),
                "sources": str(sources).split(","),
            }
        )
    series = []
    if progress.empty:
        return {"nodes": nodes, "series": series}
    codes, uniques = pd.factorize(progress["node"], sort=True)
    order = np.argsort(codes, kind="stable")  # (groupby's order: keys sorted, rows kept)
    order = order[codes[order] >= 0]  # (groupby leaves out a missing node)
    bounds = np.searchsorted(codes[order], np.arange(len(uniques) + 1))
    kept: dict[int, np.ndarray] = {}  # rows kept of a group of n rows, per n
    picks = []
    for i in range(len(uniques)):
        n = int(bounds[i + 1] - bounds[i])
        keep = kept.get(n)
        if keep is None:
            keep = kept[n] = np.unique(
                np.r_[np.linspace(0, n - 1, JSON_POINTS).round(), n - 1]
            ).astype(int)
        picks.append(order[bounds[i] + keep])
    rows = progress.iloc[np.concatenate(picks)] if picks else progress.iloc[:0]
    values = zip(
        _iso_list(rows["ts"]),
        rows["step"].tolist(),
        rows["rate"].tolist(),
        rows["step_time_s"].tolist(),
        strict=True,
    )
    for i, node in enumerate(uniques.tolist()):
        n = len(picks[i])
        series.append(
            {
                "node": node,
                "points": [
                    {"time": t, "step": _num(s), "rate": _num(r), "step_time_s": _num(st)}
                    for t, s, r, st in itertools.islice(values, n)
                ],
            }
        )
    return {"nodes": nodes, "series": series}


def _iso_list(times: pd.Series) -> list:
    """:func:`analyzer.model.iso` of each value of a column (numpy's text for the usual
    dates, the same digits; ``iso`` itself for any other)."""
    from analyzer.model import iso

    values = times.tolist()
    try:
        utc = pd.to_datetime(times, utc=True).dt.tz_convert(None)
        ns = utc.to_numpy(dtype="datetime64[ns]")
    except (TypeError, ValueError, OverflowError):
        return [iso(v) for v in values]
    valid = ~np.isnat(ns)
    low, high = np.datetime64("1970-01-01", "ns"), np.datetime64("2262-01-01", "ns")
    if not np.all((ns[valid] >= low) & (ns[valid] < high)):
        return [iso(v) for v in values]
    text = np.datetime_as_string(ns.astype("datetime64[us]"), unit="us").tolist()
    return [
        t + "Z" if ok else iso(v) for t, ok, v in zip(text, valid.tolist(), values, strict=True)
    ]


def _num(value) -> float | None:
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return round(value, 6) if np.isfinite(value) else None


def summary_lines(progress: pd.DataFrame) -> list[str]:
    """One plain line per node: reports, last step (when), pace."""
    summ = summary(progress)
    out = []
    columns = ("reports", "last_step", "last_step_time", "rate", "step_time_s")
    for node, reports, last_step, when, rate, step_time in zip(
        summ.index.tolist(), *(summ[c].tolist() for c in columns), strict=True
    ):
        parts = [f"{node}: {int(reports)} report(s)"]
        if pd.notna(last_step):
            parts.append(
                f"last step {last_step:g}"
                + (f" at {pd.Timestamp(when).strftime('%H:%M:%S')}" if pd.notna(when) else "")
            )
        if pd.notna(rate):
            parts.append(f"{rate:.3g} steps/s")
        if pd.notna(step_time):
            parts.append(f"{step_time:.3g} s/step")
        out.append(", ".join(parts))
    return out
