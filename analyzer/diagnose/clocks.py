"""Step 4, clock skew: offsets from near-simultaneous events, peeled off one node at a time."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from analyzer.diagnose.common import SKEW_AGREE_S, SKEW_HUGE_S, SKEW_MIN_S, _seconds, _utc
from analyzer.diagnose.facts import Facts


@dataclass
class ClockEstimate:
    """Per node offset (seconds, + = its clock is ahead) and which were applied."""

    offsets: dict[str, float] = field(default_factory=dict)
    applied: dict[str, float] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)

    def correct(self, node: str, ts: Any) -> Any:
        if ts is None or pd.isna(ts):
            return ts
        return ts - pd.Timedelta(seconds=self.applied.get(node, 0.0))


def _anchors(facts: dict[str, Facts], blames: pd.DataFrame) -> dict[str, dict[str, pd.Timestamp]]:
    """Near-simultaneous events per kind: start-up, and the victims' first blame (the burst)."""
    anchors: dict[str, dict[str, pd.Timestamp]] = {"start-up": {}, "error burst": {}}
    for node, f in facts.items():
        if f.first_time is not None and not pd.isna(f.first_time):
            anchors["start-up"][node] = f.first_time
    peer_blames = blames[~blames["self"]] if not blames.empty else blames
    if not peer_blames.empty:
        first = peer_blames.assign(ts=_utc(peer_blames["ts"])).groupby("victim")["ts"].min()
        if len(first) >= 2:
            anchors["error burst"] = {str(k): v for k, v in first.items()}
    return anchors


def _pairwise_offset(
    node: str, anchors: dict[str, dict[str, pd.Timestamp]]
) -> tuple[float, dict[str, float]]:
    """Median time difference of ``node``'s anchors to every other node's, overall and per kind."""
    return _pairwise_offsets([node], anchors)[node]


def _pairwise_offsets(
    nodes: list[str], anchors: dict[str, dict[str, pd.Timestamp]]
) -> dict[str, tuple[float, dict[str, float]]]:
    """:func:`_pairwise_offset` of each node, the differences taken from one array per kind
    (nanoseconds; ``(a - b) / 1e9`` is what ``(a - b).total_seconds()`` gives)."""
    arrays: dict[str, tuple[dict[str, int], np.ndarray] | None] = {}
    for kind, times in anchors.items():
        values = list(times.values())
        exact = all(type(v) is pd.Timestamp for v in values)  # (NaT is not a Timestamp)
        arrays[kind] = (
            ({n: i for i, n in enumerate(times)}, np.array([v.value for v in values], np.int64))
            if exact
            else None
        )
    out: dict[str, tuple[float, dict[str, float]]] = {}
    for node in nodes:
        per_kind: dict[str, float] = {}
        every: list[float] = []
        for kind, times in anchors.items():
            if node not in times or len(times) < 2:
                continue
            got = arrays[kind]
            if got is None:
                diffs = [_seconds(times[node] - t) for other, t in times.items() if other != node]
            else:
                index, ns = got
                i = index[node]
                diffs = ((ns[i] - np.delete(ns, i)) / 1e9).tolist()
            per_kind[kind] = statistics.median(diffs)
            every.extend(diffs)
        out[node] = ((statistics.median(every) if every else 0.0), per_kind)
    return out


def _confirmed(offset: float, per_kind: dict[str, float], overlaps: bool) -> bool:
    """Is an apparent offset a clock error rather than a late start or a slow reaction?

    Two kinds of event that agree are enough; a huge offset on start-up alone only when the
    node's log does not even overlap its peers' (a task started late overlaps: peers waited).
    """
    if abs(offset) < SKEW_MIN_S:
        return False
    agreeing = [v for v in per_kind.values() if abs(v - offset) < SKEW_AGREE_S]
    if len(agreeing) >= 2:
        return True
    return abs(offset) >= SKEW_HUGE_S and not overlaps


def _overlaps(node: str, facts: dict[str, Facts], est: ClockEstimate) -> bool:
    """Does ``node``'s log span overlap the others' (with the corrections made so far)?"""
    spans = {
        n: (est.correct(n, f.first_time), est.correct(n, f.last_time))
        for n, f in facts.items()
        if f.first_time is not None and not pd.isna(f.first_time)
    }
    if node not in spans or len(spans) < 2:
        return True
    first, last = spans.pop(node)
    return first <= max(e for _, e in spans.values()) and last >= min(b for b, _ in spans.values())


def estimate_clock_offsets(facts: dict[str, Facts], blames: pd.DataFrame) -> ClockEstimate:
    """Step 4: peel off the most-offset node while one stands out, correcting its anchors."""
    anchors = _anchors(facts, blames)
    est = ClockEstimate()
    nodes = sorted(set().union(*(set(t) for t in anchors.values())))
    if len(nodes) < 3:
        # with two nodes there is no majority to say whose clock is wrong
        est.offsets = dict.fromkeys(nodes, 0.0)
        return est
    for _ in range(len(nodes)):
        measured = _pairwise_offsets([n for n in nodes if n not in est.applied], anchors)
        if not measured:
            break
        node = max(measured, key=lambda n: abs(measured[n][0]))
        offset, per_kind = measured[node]
        if not _confirmed(offset, per_kind, _overlaps(node, facts, est)):
            break
        # the error burst is a sharper event than start-up (imports take seconds)
        offset = per_kind.get("error burst", offset)
        est.applied[node] = offset
        est.reasons[node] = ", ".join(f"{k} {v:+.1f} s" for k, v in per_kind.items())
        for times in anchors.values():
            if node in times:
                times[node] = times[node] - pd.Timedelta(seconds=offset)
    # what is left is reaction jitter, measurable only on the sharp error burst
    residuals = _pairwise_offsets(nodes, {"error burst": anchors["error burst"]})
    for node in nodes:
        est.offsets[node] = round(est.applied.get(node, 0.0) + residuals[node][0], 3)
    return est


def _corrected_times(nodes: Any, times: pd.Series, clock: ClockEstimate) -> pd.Series:
    """``clock.correct(node, time)`` row by row, vectorized (``times`` in UTC; a fresh index)."""
    codes, uniques = pd.factorize(np.asarray(nodes, dtype=object))
    shifts = [pd.Timedelta(seconds=clock.applied.get(n, 0.0)).value for n in uniques]
    shift = np.array([*shifts, 0], dtype="int64")[codes]  # code -1 (no node): no shift
    return times.reset_index(drop=True) - pd.Series(pd.to_timedelta(shift, unit="ns"))
