"""Step 0, zones: a log that mixes epoch-stamped and zone-less lines tells its own zone error."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from analyzer.diagnose.common import SKEW_MIN_S, ZONE_STEP_S, _Columns, _sort_order, _utc

#: ``ts_origin`` values whose times carry their own zone (or are epoch seconds)...
ABSOLUTE_ORIGINS = ("epoch", "wrapper")
#: ...and those read in the node's local zone (``--tz``), which may be wrong.
LOCAL_ORIGINS = ("parsed", "year_inferred")


@dataclass
class ZoneFix:
    """Per node, how far its zone-less lines sit from its own absolute (epoch/zoned) lines."""

    offsets: dict[str, float] = field(default_factory=dict)
    pairs: dict[str, int] = field(default_factory=dict)


def _origin_class(timeline: pd.DataFrame) -> pd.Series:
    """Per row: 1.0 for a zone-less (local) time, 0.0 for an absolute one, NaN otherwise."""
    codes, uniques = pd.factorize(timeline["ts_origin"])
    kinds = [
        1.0 if u in LOCAL_ORIGINS else 0.0 if u in ABSOLUTE_ORIGINS else float("nan")
        for u in uniques
    ]
    table = np.array([*kinds, float("nan")])  # code -1 (missing): NaN
    return pd.Series(table[codes], index=timeline.index)


def zone_offsets(timeline: pd.DataFrame, *, columns: _Columns | None = None) -> ZoneFix:
    """Step 0: compare adjacent lines of one file where one time is zone-less and one is not.

    A log that mixes epoch-stamped C++ lines with zone-less Python lines tells its own zone
    error: the median gap between neighbouring lines of the two kinds (numpy, no Python loop
    over rows; nodes without both kinds are skipped at once).
    """
    fix = ZoneFix()
    if timeline.empty or "ts_origin" not in timeline:
        return fix
    columns = columns or _Columns(timeline)
    cls = _origin_class(timeline).to_numpy()
    node_codes, node_names = columns.nodes
    seen = np.zeros((2, len(node_names) + 1), dtype=bool)  # [kind, code + 1]
    seen[1, node_codes[cls == 1.0] + 1] = True
    seen[0, node_codes[cls == 0.0] + 1] = True
    both = seen[0] & seen[1]  # per code + 1: the node has lines of both kinds
    rows = np.flatnonzero(both[node_codes + 1] & ~np.isnan(cls))
    if not len(rows):
        return fix
    file_codes = columns.files[rows]
    line_no = timeline["line_no"].to_numpy(dtype="int64", na_value=0)[rows]
    ts = columns.ts.to_numpy(dtype="datetime64[ns]").astype("int64")[rows]
    order = _sort_order(node_codes[rows], file_codes, line_no)
    node, file, kind, ts = node_codes[rows][order], file_codes[order], cls[rows][order], ts[order]
    pair = (node[1:] == node[:-1]) & (file[1:] == file[:-1]) & (kind[1:] != kind[:-1])
    # local minus absolute time of each neighbouring pair, in seconds
    gap = (ts[1:] - ts[:-1]) / 1e9 * np.where(kind[1:] == 1.0, 1.0, -1.0)
    codes, medians, sizes = _group_medians(node[1:][pair], gap[pair])
    for code, median, size in zip(codes, medians, sizes, strict=True):
        offset = _zone_step(median)
        if abs(offset) >= SKEW_MIN_S and size >= 2:
            fix.offsets[str(node_names[code])] = offset
            fix.pairs[str(node_names[code])] = size
    return fix


def _group_medians(keys: np.ndarray, values: np.ndarray) -> tuple[list, list, list]:
    """Per key (ascending), the median of its values (NaN left out, as ``Series.median``
    does; the middle one, or the mean of the two middle ones) and how many values it has:
    from one sort, not a group of rows per key."""
    order = np.lexsort((values, keys))  # (NaN sorts last within its key)
    keys, values = keys[order], values[order]
    if not len(keys):
        return [], [], []
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    sizes = np.diff(np.r_[starts, len(keys)])
    counted = np.add.reduceat(~np.isnan(values), starts)  # the values that are numbers
    lo = starts + np.maximum(counted - 1, 0) // 2
    hi = starts + np.maximum(counted, 1) // 2
    lo, hi = np.minimum(lo, len(values) - 1), np.minimum(hi, len(values) - 1)
    medians = np.where(counted > 0, (values[lo] + values[hi]) / 2, np.nan)
    medians = np.where((counted % 2 == 1), values[lo], medians)
    return keys[starts].tolist(), [float(m) for m in medians], sizes.tolist()


def _zone_step(offset: float) -> float:
    """One machine's two kinds of stamp differ by its zone: a whole quarter hour, when close."""
    step = round(offset / ZONE_STEP_S) * ZONE_STEP_S
    return float(step) if step and abs(offset - step) < SKEW_MIN_S else offset


def aligned_times(timeline: pd.DataFrame, fix: ZoneFix) -> pd.Series:
    """The timeline's ``ts`` as UTC, with each node's zone-less lines moved by its zone fix.

    Lines that inherited their time follow the line they inherited it from.
    """
    ts = _utc(timeline["ts"])
    if not fix.offsets:
        return ts
    cls = _origin_class(timeline)
    frame = pd.DataFrame(
        {"node": timeline["node"].astype(str), "file": timeline["file"].astype(str), "cls": cls}
    )
    frame["line_no"] = timeline["line_no"].astype("int64")
    order = frame.sort_values(["node", "file", "line_no"], kind="stable")
    order["cls"] = order.groupby(["node", "file"], sort=False)["cls"].ffill()
    cls = order["cls"].reindex(timeline.index)
    shift = frame["node"].map(fix.offsets).fillna(0.0) * (cls == 1.0)
    return ts - pd.to_timedelta(shift, unit="s")
