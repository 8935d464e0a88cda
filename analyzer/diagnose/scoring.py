"""Step 6, scoring: points per suspect node from every signal; best first."""

from __future__ import annotations

import bisect
from typing import Any

import numpy as np
import pandas as pd

from analyzer.diagnose.case import Candidate, Case, _corrected
from analyzer.diagnose.clocks import _corrected_times
from analyzer.diagnose.common import (
    _KILLED_RE,
    START_WAIT_S,
    _contains,
    _dict_rows,
    _human_duration,
    _names,
    _node_order,
    _seconds,
    _utc,
    _utc_one,
    _values,
)
from analyzer.diagnose.shapes import odd_shape_members
from analyzer.diagnose.silence import _reacted, _reactions

#: a ClusterCoordinator's lines about the functions it sent to its workers (TF's
#: distribute/coordinator/cluster_coordinator.py: "%s encountered the following error when
#: processing closure: %r:%s", and its remote-function failures)
_DISPATCH_RE = r"encountered the following error when processing closure|Remote function on worker"
#: errors of the program itself, the same wherever it runs
_PROGRAM_CATEGORIES = ("dtype_mismatch", "shape_mismatch")


def _dispatchers(ev: Case) -> dict[str, Any]:
    """Nodes that ran a ClusterCoordinator in a job with a program error (dtype, shape): the
    functions their workers failed in are theirs (a ParameterServerStrategy worker runs only
    what the coordinator sends it), so the error a worker hit first is the coordinator's. Per
    such node, its own line that reported the failed closure, carrying that error's category
    (None when its own findings already say it)."""
    if ev.intrinsic.empty:
        return {}
    program = ev.intrinsic[ev.intrinsic["category"].isin(_PROGRAM_CATEGORIES)]
    if program.empty:
        return {}
    timeline = ev._memo.get("timeline")
    if timeline is None or timeline.empty:
        return {}
    said = timeline[_contains(timeline["message"], _DISPATCH_RE)]
    if said.empty:
        return {}
    first_error = program.sort_values("ts", kind="stable").iloc[0]
    own_nodes = set(_values(program["node"]))
    out: dict[str, Any] = {}
    for node, row in _earliest_rows(said).items():
        node = str(node)
        if node in own_nodes:
            out[node] = None  # (its own program error is its intrinsic finding already)
            continue
        line = dict(row)
        for key in ("category", "pattern_id", "severity", "title"):
            if key in first_error:
                line[key] = first_error[key]
        out[node] = line
    return out


_JOINED_RE = r"/job:([\w-]+)/replica:\d+/task:(\d+) has connected to coordination service"


def _joined_tasks(ev: Case) -> set[str]:
    """The tasks the coordination service's host logged as joining (``job:index``)."""
    timeline = ev._memo.get("timeline")
    if timeline is None or timeline.empty:
        return set()
    rows = timeline["message"][_contains(timeline["message"], _JOINED_RE)]
    found = rows.astype(str).str.extract(_JOINED_RE).dropna()
    return {f"{job}:{int(index)}" for job, index in found.itertuples(index=False)}


def score_candidates(ev: Case) -> list[Candidate]:
    """Step 6: points per node; the list is sorted best first (ties: earliest failure)."""
    cands: dict[str, Candidate] = {}

    def cand(node: str) -> Candidate:
        return cands.setdefault(node, Candidate(node))

    peer_blames = ev.blames[~ev.blames["self"]] if not ev.blames.empty else ev.blames
    if ev.consistency.spec_outliers and not peer_blames.empty:
        # a task with another cluster spec waits for peers at wrong addresses, or for tasks
        # that do not exist: what it names says nothing about them
        peer_blames = peer_blames[~peer_blames["victim"].isin(ev.consistency.spec_outliers)]
    for node, (early_victims, victims) in _blame_groups(peer_blames):
        early = sorted(early_victims)
        late = sorted(victims - set(early))
        c = cand(str(node))
        c.blamers = early + late
        f = ev.facts.get(str(node))
        if (
            early
            and f is not None
            and f.ending == "clean"
            and str(node) not in ev.intrinsic_nodes()
        ):
            # named, but its own log ends with a goodbye and no error: it did its part
            c.add(1, f"named by {_names(early)}, but its log ends cleanly")
        elif early:
            c.add(3 + min(len(early) - 1, 3), f"blamed by {_names(early)}")
        if late:
            c.add(1, f"named later by {_names(late)}, after their own failure had begun")
    for node, first in _earliest_rows(ev.intrinsic).items():
        c = cand(str(node))
        c.intrinsic = first
        c.add(3, f"its own error: {c.intrinsic['category']}")
        if ev.facts.get(str(node)) and ev.facts[str(node)].ending == "exception":
            c.add(1, "its log ends with that failure")
    reactions = None
    for node, after in ev.silent.items():
        cand(node).add(
            2, f"its log stops {_human_duration(after)} before its peers' with no goodbye"
        )
        if reactions is None:
            reactions = _reactions(ev.symptom_times(), ev.blames, ev.clock)
        if _reacted(reactions, node, ev.clock.correct(node, ev.facts[node].last_time)):
            cand(node).add(1, "its peers began failing right after it went quiet")
    for node, why in odd_shape_members(ev).items():
        cand(node).add(4, why)
    for node, notice in ev.notices().items():
        if node not in cands or cands[node].intrinsic is None:
            c = cand(node)
            c.add(3, "the scheduler's notice: it was being taken away (preemption)")
            if c.intrinsic is None:
                c.intrinsic = notice
    for node in ev.blocked:
        late = _late_by(node, ev)
        if late is not None:
            cand(node).add(
                3, f"started {_human_duration(late)} after its peers and never got past start-up"
            )
    for node, (step, count) in ev.stopped_short().items():
        cand(node).add(2, f"its log stops mid-run at step {step:g} of {count:g}, with no goodbye")
    for node in ev.cut_off():
        where = "mid-training" if ev.phases.furthest(node) == "training" else "mid-run"
        after = (
            "no node finished training"
            if ev.phases.end is None
            else "it had said its training finished"
        )
        peers = (
            "its peers' logs go on to a clean end"
            if any(f.ending == "clean" for f in ev.facts.values())
            else "its peers only serve"
        )
        cand(node).add(2, f"its log ends {where} with no goodbye, while {peers} and {after}")
    for node in ev.never_finished():
        cand(node).add(
            2,
            "its log ends mid-run with no goodbye, while its peers trained on and said they "
            "finished",
        )
    for node in ev.restarted():
        cand(node).add(3, "its process started again: its first run's log stops with no goodbye")
    for node in ev.gone_before_stop():
        cand(node).add(
            2,
            "the stop that ended the job named the other tasks, not it: it had gone before "
            "(its log ends with no goodbye)",
        )
    dispatchers = _dispatchers(ev)
    for node, c in cands.items():
        if (
            dispatchers
            and node not in dispatchers
            and c.intrinsic is not None
            and c.intrinsic.get("category") in _PROGRAM_CATEGORIES
        ):
            c.add(-3, "the function it failed in was sent by the coordinator: its program's")
    for node, line in dispatchers.items():
        c = cand(node)
        c.add(
            2,
            "its workers ran the functions it sent them (ClusterCoordinator): a dtype or shape "
            "error in them is its program's",
        )
        if line is not None and (
            c.intrinsic is None or c.intrinsic.get("category") not in _PROGRAM_CATEGORIES
        ):
            c.intrinsic = line  # (its own report of the failed function, with its category)
            c.add(3, f"its function failed on a worker: {line['category']}")
    stuck = ev.stuck_waited_on()
    if stuck is not None:
        cand(stuck).add(
            5,
            "it did not exit on the SIGTERM that ended the job while its peers did (a stopped "
            "or stuck process), and their first errors are timeouts: they waited on it",
        )
    woken = ev.woken_waited_on() if stuck is None else None
    if woken is not None:
        cand(woken).add(
            5,
            "its peers' first errors are timeouts, and it spoke only after them, of its peers "
            "being gone or of its own end (a stopped process the launcher's abort woke or "
            "killed): they waited on it",
        )
    for node in ev.unexplained_exits():
        cand(node).add(2, "its log ends with an uncaught exception that no rule recognised")
    for node, f in ev.facts.items():
        if node in ev.stopped or node in ev.outside:
            continue  # stopped with the whole job from outside, or no task at all
        if f.ending == "killed" or (f.exit_info and _KILLED_RE.search(f.exit_info)):
            cand(node).add(1, f"exit info: {f.exit_info or f.ending}")
    failing = ev.failing
    if failing:
        for node in ev.consistency.spec_outliers:
            # a spec the others do not share breaks the job for everyone: what they then log
            # (waits, aborted collectives naming their leader) follows from it
            cand(node).add(5, "its cluster spec disagrees with the others'")
        intrinsic = _earliest_rows(ev.intrinsic)
        for node, other in ev.consistency.claims.items():
            got = intrinsic.get(other)
            if got is not None and got.get("category") == "address_in_use":
                # two processes bound for one task's port: the one that is not that task
                cand(node).add(4, f"it claims to be {other}, which then could not bind its port")
        for node, first in ev.consistency.duplicates.items():
            if node in ev.facts:
                cand(node).add(3, f"its address in the cluster spec is {first}'s too")
        for node, what in ev.consistency.version_outliers.items():
            cand(node).add(2, f"odd version: {what}")
        unresolved = (
            ev.errors[~ev.errors.index.isin(list(ev.blames["row"]))]
            if not ev.blames.empty
            else ev.errors
        )
        joined = _joined_tasks(ev)
        for node, f in ev.facts.items():
            if f.missing and not _in_usual_spec(node, ev):
                continue  # only a disagreeing spec names it: no such task is missing
            if f.missing and ev.blocked:
                cand(node).add(2, f"left no log while {_names(sorted(ev.blocked))} wait for tasks")
            elif f.missing and not unresolved.empty:
                cand(node).add(1, "left no log while peers report unreachable peers")
            elif f.missing and ev.ended_from_outside():
                cand(node).add(2, "left no log, and the job was stopped before any training ended")
            elif f.missing and ev.never_trained():
                cand(node).add(2, "left no log, and no task's log got past start-up")
            if f.missing and joined and node not in joined:
                cand(node).add(
                    2, "the coordination service saw its peers join, never it: it never came up"
                )
    if not peer_blames.empty:
        first_error = ev.first_errors  # (= errors.sort_values("ts").groupby("node").head(1))
        victims_rows = set(_values(peer_blames["row"]))
        for row_id, node in zip(
            first_error.index.tolist(), _values(first_error["node"]), strict=True
        ):
            if row_id in victims_rows and str(node) in cands:
                cands[str(node)].add(-1, "its own first error blames another node")
    for node, c in cands.items():
        c.time = _failure_time(node, c, ev)
    if failing and not cands:
        for node in [*ev.errors["node"].unique(), *ev.blocked]:
            c = cand(str(node))
            c.time = _failure_time(str(node), c, ev)
    return sorted(
        cands.values(),
        key=lambda c: (
            -c.score,
            c.time if c.time is not None else pd.Timestamp.max.tz_localize("UTC"),
            _node_order(c.node),
        ),
    )


def _late_by(node: str, ev: Case) -> float | None:
    """Seconds by which ``node``'s log starts after the median of its peers', when that is
    at least ``START_WAIT_S`` (a late start, not start-up jitter)."""
    got = ev._memo.get("late_by")
    if got is None:  # (the starts sorted once for every node asked)
        starts = {
            n: ev.clock.correct(n, f.first_time)
            for n, f in ev.facts.items()
            if f.first_time is not None and not pd.isna(f.first_time) and n not in ev.outside
        }
        got = ev._memo["late_by"] = (starts, sorted(starts.values()))
    starts, ordered = got
    if node not in starts or len(starts) < 2:
        return None
    # the middle one of the others: the sorted starts with one copy of its own left out
    mid = (len(ordered) - 1) // 2
    mine = bisect.bisect_left(ordered, starts[node])
    late = _seconds(starts[node] - ordered[mid if mid < mine else mid + 1])
    return late if late >= START_WAIT_S else None


def _in_usual_spec(node: str, ev: Case) -> bool:
    """Does the spec most nodes agree on name ``node`` (True when no spec tells)?"""
    usual = sorted(ev.consistency.majority_nodes or [])
    spec = ev.facts[usual[0]].cluster if usual and usual[0] in ev.facts else None
    if not spec:
        return True
    job, _, index = node.partition(":")
    return index.isdigit() and int(index) < len(spec.get(job, []))


def _blame_groups(peer_blames: pd.DataFrame) -> list[tuple[Any, tuple[set, set]]]:
    """``groupby("blamed")`` of peer blames: per blamed node (sorted), the set of its early
    blamers and the set of all its blamers."""
    if peer_blames.empty:
        return []
    early = peer_blames.get("early", False)
    pairs = peer_blames.assign(early=early).groupby(["blamed", "victim"], sort=True)["early"].any()
    groups: dict[Any, tuple[set, set]] = {}
    for (blamed, victim), any_early in zip(pairs.index.tolist(), pairs.tolist(), strict=True):
        group = groups.get(blamed)
        if group is None:
            group = groups[blamed] = (set(), set())
        if any_early:
            group[0].add(victim)
        group[1].add(victim)
    return list(groups.items())


def _earliest_rows(frame: pd.DataFrame) -> dict[Any, dict]:
    """Per node (in sorted order), its earliest row as a dict:
    ``{node: rows.sort_values("ts").iloc[0] for node, rows in frame.groupby("node")}``,
    from one stable sort; a node whose earliest time is shared by two rows is sorted as such."""
    if frame.empty:
        return {}
    # Arrow sorts stably (the first of equal times wins); numpy's quicksort may not
    stable = isinstance(frame["ts"].dtype, pd.ArrowDtype)
    codes, uniques = pd.factorize(frame["node"], sort=True)
    ts = _utc(frame["ts"]).to_numpy(dtype="datetime64[ns]")
    late = np.iinfo(np.int64).max  # a missing time sorts last
    key = np.where(np.isnat(ts), late, ts.astype(np.int64))
    present = np.flatnonzero(codes >= 0)
    order = present[np.lexsort((key[present], codes[present]))]
    starts = np.flatnonzero(np.r_[True, codes[order][1:] != codes[order][:-1]])
    first = order[starts]
    following = order[np.minimum(starts + 1, len(order) - 1)]
    tied = (
        ~np.bool_(stable)
        & (starts + 1 < len(order))
        & (codes[following] == codes[first])
        & (key[following] == key[first])
        & (key[first] != late)
    )
    rows = _dict_rows(frame.iloc[first])
    out: dict[Any, dict] = {}
    for code, row, tie in zip(codes[first].tolist(), rows, tied.tolist(), strict=True):
        node = uniques[code]
        if tie:  # which of the two comes first is the sort's business
            group = frame[(frame["node"] == node).to_numpy(dtype=bool)]
            row = group.sort_values("ts").iloc[0].to_dict()
        out[node] = row
    return out


def _failure_time(node: str, c: Candidate, ev: Case) -> Any:
    f = ev.facts.get(node)
    if c.intrinsic is not None:
        return ev.clock.correct(node, _utc_one(c.intrinsic["ts"]))
    if node in ev.silent and f is not None:
        return ev.clock.correct(node, f.last_time)
    if node in ev.restarted():  # where its first run ended
        return ev.clock.correct(node, _utc_one(ev.restarted()[node]["ts"]))
    own = _corrected(ev.first_times("errors"), node, ev.clock)
    if own is not None:
        return own
    if not ev.blames.empty:
        times = _blame_times(ev).get(node)
        if times:
            return min(times)
    if ev.blocked and ev.findings is not None:
        if "blocked_wait" not in ev._memo:  # (the same for every candidate)
            waits = ev.findings.loc[list(ev.blocked.values())]
            ev._memo["blocked_wait"] = min(
                ev.clock.correct(str(n), t)
                for n, t in zip(waits["node"], _utc(waits["ts"]), strict=True)
            )
        return ev._memo["blocked_wait"]
    return None


def _blame_times(ev: Case) -> dict[Any, list]:
    """Per blamed node, the (corrected) times of the blames against it, in row order: every
    group at once (kept), not one scan of the blames per candidate."""
    got = ev._memo.get("blame_times")
    if got is None:
        blames = ev.blames
        times = _corrected_times(blames["victim"], _utc(blames["ts"]), ev.clock)
        got = {}
        for blamed, t in zip(_values(blames["blamed"]), times.tolist(), strict=True):
            if isinstance(blamed, str):  # (``blames["blamed"] == node`` matches only a string)
                got.setdefault(blamed, []).append(t)
        ev._memo["blame_times"] = got
    return got


def _rank(ev: Case) -> list[Candidate]:
    """The candidates best first: those with points, else all; a job-level log is no task."""
    cands = [c for c in score_candidates(ev) if c.node not in ev.outside]
    return [c for c in cands if c.score > 0] or cands
