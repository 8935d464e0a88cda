"""Straggler: one node ran much slower than its peers, and the job ran at its pace.

Signal: per node, its pace — the median step time it reports itself (``5ms/step``,
``(0.52 s)``, ``global_step/sec``) or, when it reports none, the median interval between its
progress reports — against the median of its peers'. A node at ``STRAGGLER_FACTOR`` times its
peers' pace or more is the straggler; so is a node whose step count lags its peers' by that
factor over the same time (asynchronous training, where the others do not wait). Since when:
its first report at that pace. What its own log says then: its lines in that window that are
not progress reports. Nothing may have failed with an error of its own (such a run has another
verdict), and the run may have finished: a straggler slows a job down, it need not stop it.

With a baseline (``--baseline``), a job whose step rate fell by ``STRAGGLER_FACTOR`` or more
against the good run is slow as a whole; the node is then the one whose own pace fell most, or
the first whose log diverges from the baseline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from analyzer.diagnose.common import _node_order
from analyzer.diagnose.stall import Stall, errors_before, evidence_row, job_end, node_pace

if TYPE_CHECKING:
    from analyzer.diagnose.case import Case

STRAGGLER_FACTOR = 3.0  #: this many times its peers' step time (or this share of their steps)
MIN_REPORTS = 3  #: reports a node needs before its pace is judged
OWN_LINES = 2  #: lines of its own log (not progress) shown from its slow window


def _paces(progress: pd.DataFrame) -> tuple[pd.Series, str]:
    """Per node, its pace in seconds per step (or per report), and what was measured."""
    pace = node_pace(progress)
    pace = pace[pace["reports"] >= MIN_REPORTS]
    if pace.empty:
        return pd.Series(dtype=float), ""
    own = pace["step_time"]
    if own.notna().sum() >= 2 and own.notna().all():
        return own.astype(float), "its reported step time"
    interval = pace["interval"]
    if interval.notna().sum() >= 2:
        return interval.dropna().astype(float), "the interval between its progress reports"
    return pd.Series(dtype=float), ""


def detect_straggler(
    progress: pd.DataFrame, ev: Case, timeline: pd.DataFrame, comparison: Any = None
) -> Stall | None:
    """A :class:`Stall` of category ``straggler`` when the run shows one, else None."""
    end = job_end(ev)
    if end is None or not errors_before(ev, end + pd.Timedelta(seconds=1)).empty:
        return None
    if ev.silent or ev.blocked:
        return None
    paces, measured = _paces(progress)
    node, ratio, peers = None, 0.0, []
    if len(paces) >= 2:
        for n, p in paces.items():
            others = paces.drop(index=n)
            base = float(np.median(others))
            if base > 0 and p / base >= STRAGGLER_FACTOR and p / base > ratio:
                node, ratio, peers = (
                    str(n),
                    p / base,
                    sorted(map(str, others.index), key=_node_order),
                )
    lag = _step_lag(progress)
    if node is None and lag is not None:
        node, ratio, peers = lag
        measured = "its step count against its peers' over the same time"
    baseline_note = None
    if comparison is not None:
        slower = comparison.rate_ratio()
        if slower is not None and slower >= STRAGGLER_FACTOR:
            baseline_note = (
                f"the job ran {slower:.1f}x slower than the baseline "
                f"({comparison.rate[1]:.3g} vs {comparison.rate[0]:.3g} steps/s)"
            )
            if node is None:
                node = _slowest_against_baseline(comparison) or comparison.first_new
                ratio = slower
                measured = "the job's step rate against the baseline's"
                peers = sorted(
                    (n for n in ev.facts if n != node and not ev.facts[n].missing),
                    key=_node_order,
                )
    if node is None:
        return None
    since_row, since = _slow_since(progress, node, paces, ratio)
    own = _own_lines(timeline, node, since, progress)
    reasons = [f"{node}'s pace is {ratio:.1f}x its peers' (measured by {measured})"]
    if baseline_note:
        reasons.append(baseline_note)
    evidence = [evidence_row(ev, timeline, since_row, f"{node}'s report at its slow pace")]
    peer_rows = _typical_rows(progress, peers[:2])
    evidence += [
        evidence_row(ev, timeline, r, f"{p}'s report at the same time") for p, r in peer_rows
    ]
    evidence += [evidence_row(ev, timeline, r, f"{node}'s own log while it was slow") for r in own]
    finished = ev.phases.finished(node) is not None or any(
        ev.phases.finished(n) is not None for n in ev.facts
    )
    what = (
        f"ran {ratio:.1f}x slower than its peers"
        + (f" from {pd.Timestamp(since).strftime('%H:%M:%S')} UTC on" if since is not None else "")
        + f" (by {measured}), and the job ran at its pace"
        + ("; the job finished, late" if finished else "")
    )
    confidence = (
        min(0.9, 0.5 + 0.1 * ratio)
        if measured != "the job's step rate against the baseline's"
        else 0.5
    )
    return Stall(
        category="straggler",
        node=node,
        time=since,
        what=what,
        confidence=confidence,
        evidence=evidence,
        reasons=reasons,
        victims=[p for p in peers if p != node],
        details={"ratio": ratio, "measured": measured, "paces": paces.to_dict()},
        ambiguity=None,
    )


def _step_lag(progress: pd.DataFrame) -> tuple[str, float, list[str]] | None:
    """A node whose steps over its reporting time are ``STRAGGLER_FACTOR`` times fewer than
    its peers' (local step counts of asynchronous training)."""
    prog = progress[
        progress["step"].notna() & progress["timed"] & (progress["source"] != "checkpoint")
    ]
    if prog["node"].nunique() < 2:
        return None
    g = prog.groupby("node")
    span = (g["ts"].max() - g["ts"].min()).dt.total_seconds()
    reports = g.size()
    ok = (span > 0) & (reports >= MIN_REPORTS)
    if ok.sum() < 2:
        return None
    per_s = (reports[ok] / span[ok]).astype(float)
    best = None
    for n, r in per_s.items():
        others = per_s.drop(index=n)
        base = float(np.median(others))
        if r > 0 and base / r >= STRAGGLER_FACTOR and (best is None or base / r > best[1]):
            best = (str(n), base / r, sorted(map(str, others.index), key=_node_order))
    return best


def _slowest_against_baseline(comparison: Any) -> str | None:
    worst, node = 0.0, None
    for n in comparison.nodes:
        if n.rate and n.baseline_rate and n.rate > 0:
            slower = n.baseline_rate / n.rate
            if slower > worst:
                worst, node = slower, n.node
    return node


def _slow_since(
    progress: pd.DataFrame, node: str, paces: pd.Series, ratio: float
) -> tuple[Any, Any]:
    """The first report of ``node`` at its slow pace: (timeline row, time)."""
    mine = progress[(progress["node"] == node) & (progress["source"] != "checkpoint")]
    if mine.empty:
        return None, None
    others = paces.drop(index=node, errors="ignore")
    base = float(np.median(others)) if len(others) else np.nan
    slow = mine
    if not np.isnan(base) and mine["step_time_s"].notna().any():
        slow = mine[mine["step_time_s"] >= base * max(STRAGGLER_FACTOR, ratio / 2)]
    elif not np.isnan(base):
        gaps = mine["ts"].diff().dt.total_seconds()
        slow = mine[gaps >= base * max(STRAGGLER_FACTOR, ratio / 2)]
    first = (slow if not slow.empty else mine).iloc[0]
    return first["row"], first["ts"]


def _typical_rows(progress: pd.DataFrame, peers: list[str]) -> list[tuple[str, Any]]:
    out = []
    for p in peers:
        rows = progress[(progress["node"] == p) & progress["step"].notna()]
        if not rows.empty:
            out.append((p, rows.iloc[len(rows) // 2]["row"]))
    return out


def _own_lines(timeline: pd.DataFrame, node: str, since: Any, progress: pd.DataFrame) -> list:
    """Up to ``OWN_LINES`` rows of ``node``'s log from ``since`` on that are not progress:
    what it said while it was slow (warnings first)."""
    if since is None or timeline.empty:
        return []
    mine = timeline[(timeline["node"] == node).to_numpy(dtype=bool)]
    ts = pd.to_datetime(mine["ts"].astype(object), utc=True)
    mine = mine[(ts >= since).to_numpy()]
    mine = mine[~mine.index.isin(set(progress["row"]))]
    if mine.empty:
        return []
    level = mine["level"].astype(object).fillna("")
    ranked = mine.assign(_w=(~level.isin(["WARNING", "ERROR"])).astype(int)).sort_values(
        ["_w"], kind="stable"
    )
    return list(ranked.index[:OWN_LINES])
