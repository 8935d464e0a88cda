"""Step 5, silence and waiting: logs that stop mid-run, start-ups that never ended."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analyzer.diagnose.clocks import ClockEstimate, _corrected_times
from analyzer.diagnose.common import (
    BLOCKED_TAIL,
    SILENCE_BURST_S,
    SILENCE_GRACE_S,
    _seconds,
    _utc,
    _values,
)
from analyzer.diagnose.facts import Facts


class Reactions:
    """Symptom errors (corrected time, node, the node they blame) indexed to answer
    :meth:`reacted` for any node in ``O(log rows)``: sorted times, all and per node."""

    def __init__(self, node: np.ndarray, blamed: np.ndarray, ts: np.ndarray):
        valid = ts != np.iinfo(np.int64).min  # (NaT is in no window)
        unnamed = pd.isna(blamed) if len(blamed) else np.zeros(0, dtype=bool)
        self.empty = len(node) == 0
        #: rows blaming nobody: their times, all, and per node that logged them
        self.unnamed = np.sort(ts[valid & unnamed])
        self.unnamed_of = _sorted_groups(node[valid & unnamed], ts[valid & unnamed])
        # rows naming a node other than the one that logged them, per node named
        named = valid & ~unnamed
        named[named] = blamed[named] != node[named]
        self.named_of = _sorted_groups(blamed[named], ts[named])

    def reacted(self, node: str, stop: Any) -> bool:
        """Did a peer start failing soon after ``node`` stopped, without blaming someone else?"""
        if self.empty or stop is None or pd.isna(stop):
            return False
        start = pd.Timestamp(stop).value
        end = (stop + pd.Timedelta(seconds=SILENCE_BURST_S)).value

        def within(times: np.ndarray | None) -> int:
            if times is None or not len(times):
                return 0
            lo = np.searchsorted(times, start, side="left")
            return int(np.searchsorted(times, end, side="right") - lo)

        if within(self.unnamed) > within(self.unnamed_of.get(node)):
            return True  # a peer's error blaming nobody
        return within(self.named_of.get(node)) > 0  # a peer's error naming this node


def _sorted_groups(keys: np.ndarray, ts: np.ndarray) -> dict[Any, np.ndarray]:
    """key → its sorted times (one sort for all keys)."""
    if not len(keys):
        return {}
    codes, uniques = pd.factorize(keys)
    order = np.lexsort((ts, codes))
    codes, ts = codes[order], ts[order]
    bounds = np.searchsorted(codes, np.arange(len(uniques) + 1))
    return {uniques[i]: ts[bounds[i] : bounds[i + 1]] for i in range(len(uniques))}


def _reactions(symptoms: pd.DataFrame, blames: pd.DataFrame, clock: ClockEstimate) -> Reactions:
    """Symptom errors with their (corrected) time and the node they blame, if any."""
    peer = blames[~blames["self"]] if not blames.empty else blames
    blamed_of_row = dict(zip(_values(peer["row"]), _values(peer["blamed"]), strict=True))
    times = _corrected_times(symptoms["node"], _utc(symptoms["ts"]), clock)
    ns = times.to_numpy(dtype="datetime64[ns]").view(np.int64) if len(times) else None
    blamed = np.empty(len(symptoms), dtype=object)
    blamed[:] = [blamed_of_row.get(r) for r in symptoms.index.tolist()]
    return Reactions(
        symptoms["node"].astype(str).to_numpy(dtype=object),
        blamed,
        ns if ns is not None else np.zeros(0, dtype=np.int64),
    )


def detect_silence(
    facts: dict[str, Facts],
    symptoms: pd.DataFrame,
    blames: pd.DataFrame,
    clock: ClockEstimate,
    serving: set[str] | frozenset[str] = frozenset(),
    outside: set[str] | frozenset[str] = frozenset(),
    stopped: set[str] | frozenset[str] = frozenset(),
) -> dict[str, float]:
    """Step 5: nodes that died silently → seconds their peers logged after them.

    ``symptoms`` are the errors that are not a node's own (see :func:`_intrinsic_findings`);
    only those can be the peers' reaction to a silent death. Being blamed early counts too.
    ``serving`` nodes never got past start-up in their own log (a ps, a TF1 or
    ParameterServerStrategy worker: they serve and print nothing more): their log going quiet
    is normal, so only a peer naming them implicates them, not errors that merely follow.
    ``outside`` nodes (job-level logs) are not judged and their last line does not count as
    a peer logging on; ``stopped`` tasks (stopped together from outside) are not judged.
    """
    last = {
        n: clock.correct(n, f.last_time)
        for n, f in facts.items()
        if f.last_time is not None and not pd.isna(f.last_time)
    }
    # being waited for at start-up says a node was not there yet, not that it died
    early = (
        blames[~blames["self"] & blames["early"] & (blames["category"] != "session_blocked")]
        if not blames.empty
        else blames
    )
    blamed = set(early["blamed"]) if not early.empty else set()
    reactions = _reactions(symptoms, blames, clock)
    silent: dict[str, float] = {}
    # the latest last line of the peers: the latest of all, or the runner-up for its node
    ranked = sorted(((t, n) for n, t in last.items() if n not in outside), key=lambda p: p[0])
    top = ranked[-2:]
    for node, f in facts.items():
        if node not in last or node in outside or node in stopped:
            continue
        if f.ending not in ("mid-run", "killed"):
            continue
        others = [t for t, n in top if n != node]
        if not others:
            continue
        after = _seconds(others[-1] - last[node])
        if after <= 0:
            continue
        implicated = node in blamed or (
            node not in serving and _reacted(reactions, node, last[node])
        )
        if implicated or (f.ending == "killed" and after >= SILENCE_GRACE_S):
            silent[node] = after
    return silent


def _reacted(reactions: Reactions, node: str, stop: Any) -> bool:
    """Did a peer start failing soon after ``node`` stopped, without blaming someone else?"""
    return reactions.reacted(node, stop)


def detect_blocked(facts: dict[str, Facts], warnings: pd.DataFrame) -> dict[str, Any]:
    """Nodes whose log ends while still waiting at start-up → the waiting line's row.

    A ``session_blocked`` finding among a node's last ``BLOCKED_TAIL`` events, with no error
    after it and no goodbye, means start-up never finished there.
    """
    blocked: dict[str, Any] = {}
    if warnings.empty:
        return blocked
    waits = warnings[warnings["category"] == "session_blocked"]
    for node, rows in waits.groupby("node"):
        f = facts.get(str(node))
        if f is None or f.ending not in ("mid-run", "killed"):
            continue
        near_end = set(f.tail_rows[-BLOCKED_TAIL:])
        last = [r for r in rows.index if r in near_end]
        if last:
            blocked[str(node)] = last[-1]
    return blocked
