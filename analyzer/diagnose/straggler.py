"""Straggler: one node ran much slower than its peers, and the job ran at its pace.

Signals, from the progress each node reported (:mod:`analyzer.progress`):

- **The job slowed down** (:func:`slowdown`): the time per step of the job (the earliest
  report of each step) rose to ``SLOW_FACTOR`` times its early pace and stayed there for a
  good part of the run. That says when; the node comes from the signals below.
- **Its own step time is out of line with its peers'** over that window (or the whole run):
  ``STRAGGLER_FACTOR`` times higher — it is slow itself — or, in a synchronous job where every
  node reports at the same pace, that many times *lower* while its peers' step time fills most
  of the step: they spend the step waiting at the collective for it, it does not wait at all.
- **Its step count lags** its peers' by that factor over the same time (asynchronous
  training, where the others do not wait).
- With a baseline (``--baseline``): the job's step rate fell by ``SLOW_FACTOR`` against the good
  run; the node is then the one whose own rate fell most.
- **Its share of the job's steps fell** (:func:`_share_fell`, asynchronous training where
  every report carries the job's global step): from some global step on, the job's step
  advanced ``SHARE_RISE`` times more between two of its reports than before, while between
  their reports it advanced less than before — its peers made the steps it no longer made —
  ``STRAGGLER_FACTOR`` times its peers' change in all. Needs no time on its lines.
- **Its input was still pending when training ended** (:func:`_input_pending`): in a job
  whose every node waits ``STRAGGLER_FACTOR`` times its usual step time at recurring steps (the
  job waits for someone, and every node's step times look alike: synchronous training), one
  node alone logs that its input iterator's ``GetNext`` was cancelled after its last step —
  its next batch was not ready when the others' were. Slow input looks the same as a fast
  node in step times; this is the one line that tells them apart.

What its own log says in the window (its lines that are not progress) goes into the evidence.
Nothing may have failed with an error of its own before the job ended (such a run has another
verdict); the run may have finished: a straggler slows a job down, it need not stop it. A job
that slowed down while no signal names a node gets the verdict without a node, and says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from analyzer.diagnose.common import _node_order, _utc_one
from analyzer.diagnose.stall import Stall, errors_before, evidence_row, job_end, outside_end

if TYPE_CHECKING:
    from analyzer.diagnose.case import Case

STRAGGLER_FACTOR = 3.0  #: a node's step time this many times its peers' (or a fraction of it)
SLOW_FACTOR = 2.5  #: the job's time per step rose this many times over its early pace
MIN_REPORTS = 3  #: reports a node needs before its pace is judged
SLOW_SHARE = 0.25  #: ... and the slow window must hold this share of the job's steps (>= 5)
WAIT_SHARE = 0.5  #: peers waiting at the collective spend this share of the step in it
OWN_LINES = 2  #: lines of its own log (not progress) shown from its slow window
LATE_S = 0.2  #: a task answers late when it logs a shared event this much after its peers
LATE_SPREAD_S = 5.0  #: ... and the peers' lines of one event lie within this time
SHARE_RISE = 2.0  #: the job's steps between a node's reports rose this many times (its share fell)
SPLITS = 64  #: at most this many points of a node's reports tried as the start of its fall
WAIT_STEPS = 0.2  #: the job waits when every node waits at this share of its steps (past the first)
#: A node's input iterator's pending GetNext cancelled (TF's own words; RE2, no word boundary:
#: :func:`analyzer.classify.regex_rows` searches blocks of rows first).
INPUT_CANCELLED = r"GetNext\w*\s+(?:was\s+)?cancelled|CANCELLED.*GetNext|cancelled.*IteratorGetNext"


@dataclass
class Slowdown:
    since: Any  #: the time of the first slow step
    since_step: float
    before_s: float  #: median time per step before
    after_s: float  #: ... and after

    @property
    def factor(self) -> float:
        return self.after_s / self.before_s if self.before_s > 0 else float("inf")


def _steps(progress: pd.DataFrame) -> pd.DataFrame:
    return progress[progress["step"].notna() & (progress["source"] != "checkpoint")]


def slowdown(progress: pd.DataFrame) -> Slowdown | None:
    """When the job's time per step rose ``SLOW_FACTOR`` times over its early pace and stayed
    there (see the module doc), else None."""
    timed = _steps(progress)
    timed = timed[timed["timed"].to_numpy(dtype=bool)]
    if timed.empty:
        return None
    first = timed.groupby("step")["ts"].min().sort_index()
    if len(first) < 10:
        return None
    steps = first.index.to_numpy(dtype=float)
    secs = (first - first.iloc[0]).dt.total_seconds().to_numpy()
    per_step = np.diff(secs) / np.diff(steps)
    n = len(per_step)
    head = max(3, n // 5)
    before = float(np.median(per_step[1:head])) if head > 1 else float(np.median(per_step))
    if before <= 0:
        return None
    slow = per_step >= SLOW_FACTOR * before
    window = max(5, int(SLOW_SHARE * n))
    # the first slow step from which most of the following steps stay slow
    tail_share = np.cumsum(slow[::-1])[::-1] / np.arange(n, 0, -1)
    for i in np.flatnonzero(slow):
        if i < head or n - i < window:
            continue
        if tail_share[i] >= 0.8:
            after = float(np.median(per_step[i:]))
            return Slowdown(first.iloc[i + 1], steps[i + 1], before, after)
    return None


def _window(progress: pd.DataFrame, since_step: float | None) -> pd.DataFrame:
    rows = _steps(progress)
    if since_step is not None:
        rows = rows[rows["step"] >= since_step]
    return rows


def _others(values: pd.Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per value, the ``np.median``, min and max of all the *other* values (from one sort:
    ``values.drop(index=i)`` for every ``i`` would be ``n²``). At least two values."""
    v = values.to_numpy(dtype=float)
    n = len(v)
    order = np.argsort(v, kind="stable")
    s = v[order]
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)

    def without(j: int) -> np.ndarray:
        """The ``j``-th smallest of the others, for each value."""
        return np.where(j < rank, s[j], s[min(j + 1, n - 1)])

    m = n - 1
    median = without(m // 2) if m % 2 else (without(m // 2 - 1) + without(m // 2)) / 2
    low = np.where(rank == 0, s[min(1, n - 1)], s[0])
    high = np.where(rank == n - 1, s[max(n - 2, 0)], s[-1])
    return median, low, high


def _peers_of(index: pd.Index, node: Any) -> list[str]:
    """The other nodes of ``index``, in node order."""
    return sorted((str(n) for n in index if n != node), key=_node_order)


def _own_time_outlier(
    rows: pd.DataFrame, job_step_s: float | None
) -> tuple[str, float, str, list[str]] | None:
    """(node, factor, how, peers) for a node whose reported step time is out of line."""
    times = rows.groupby("node")["step_time_s"].agg(["median", "count"])
    times = times[(times["count"] >= MIN_REPORTS) & times["median"].notna()]
    if len(times) < 2:
        return None
    medians = times["median"]
    bases, lows, highs = _others(medians)
    # in lockstep (every node reports the same steps) a step time out of line says who waits:
    # the nodes that wait at the collective for one spend the step there, it does not
    lockstep = _lockstep(rows, medians.index)
    best = None
    for node, med, base, peer_min, peer_max in zip(
        medians.index.tolist(),
        medians.tolist(),
        bases.tolist(),
        lows.tolist(),
        highs.tolist(),
        strict=True,
    ):
        if base <= 0 or med <= 0:
            continue
        high = med / base
        low = base / med
        spread = float(peer_max / peer_min) if peer_min > 0 else np.inf
        peers_wait = job_step_s is None or base >= WAIT_SHARE * job_step_s
        if (
            high >= STRAGGLER_FACTOR
            and (best is None or high > best[1])
            and not (lockstep and best is not None and best[2] == "waited for")
        ):
            best = (node, high, "slow")
        elif (
            low >= STRAGGLER_FACTOR
            and spread < 1.5
            and peers_wait
            and (best is None or low > best[1] or (lockstep and best[2] == "slow"))
        ):
            best = (node, low, "waited for")
    if best is None:
        return None
    return (str(best[0]), best[1], best[2], _peers_of(medians.index, best[0]))


def _lockstep(rows: pd.DataFrame, nodes: pd.Index) -> bool:
    """Did ``nodes`` report the same steps (synchronous training: each step ends when every
    node's part of it is in)? The same number of reports and the same last step."""
    mine = rows[rows["node"].isin(nodes)]
    g = mine.groupby("node")["step"]
    counts, lasts = g.size(), g.max()
    return bool(len(counts) >= 2 and counts.nunique() == 1 and lasts.nunique() == 1)


def _step_lag(rows: pd.DataFrame) -> tuple[str, float, str, list[str]] | None:
    """A node whose reports over its reporting time are ``STRAGGLER_FACTOR`` times fewer than
    its peers' (local steps of asynchronous training)."""
    rows = rows[rows["timed"].to_numpy(dtype=bool)]
    if rows["node"].nunique() < 2:
        return None
    g = rows.groupby("node")
    span = (g["ts"].max() - g["ts"].min()).dt.total_seconds()
    reports = g.size()
    ok = (span > 0) & (reports >= MIN_REPORTS)
    if ok.sum() < 2:
        return None
    per_s = (reports[ok] / span[ok]).astype(float)
    bases = _others(per_s)[0]
    best = None
    for n, r, base in zip(per_s.index.tolist(), per_s.tolist(), bases.tolist(), strict=True):
        if r > 0 and base / r >= STRAGGLER_FACTOR and (best is None or base / r > best[1]):
            best = (n, base / r)
    if best is None:
        return None
    return (str(best[0]), best[1], "lags", _peers_of(per_s.index, best[0]))


def detect_straggler(
    progress: pd.DataFrame, ev: Case, timeline: pd.DataFrame, comparison: Any = None
) -> Stall | None:
    """A :class:`Stall` of category ``straggler`` when the run shows one, else None."""
    outside = outside_end(ev, timeline)
    end = job_end(ev, skip=outside.sources)
    if end is None or not errors_before(ev, end + pd.Timedelta(seconds=1)).empty:
        return None
    if ev.silent or ev.blocked:
        return None
    if outside.time is not None and not ev.all_finished_before(outside.time):
        return None  # (a stop after every trainer finished is the teardown: still judged)
    slow = slowdown(progress)
    rows = _window(progress, slow.since_step if slow else None)
    found = _own_time_outlier(rows, slow.after_s if slow else None) or _step_lag(rows)
    reasons: list[str] = []
    if slow is not None:
        reasons.append(
            f"the job's time per step rose {slow.factor:.1f}x (from {slow.before_s:.3g} s to "
            f"{slow.after_s:.3g} s) from step {slow.since_step:g} on"
        )
    base_slower = comparison.rate_ratio() if comparison is not None else None
    if base_slower is not None and base_slower >= SLOW_FACTOR:
        reasons.append(
            f"the job ran {base_slower:.1f}x slower than the baseline "
            f"({comparison.rate[1]:.3g} vs {comparison.rate[0]:.3g} steps/s)"
        )
        if found is None:
            node = _slowest_against_baseline(comparison)
            if node is not None:
                found = (node, base_slower, "slower than in the baseline", [])
    late = None
    if found is None and slow is not None:
        late = _late_responder(timeline, progress, slow, ev)
        if late is not None:
            found = (late[0], late[1], "answers late", late[2])
    share = None
    if found is None:
        share = _share_fell(progress)
        if share is not None:
            found = (share.node, share.factor, "share fell", share.peers)
    pending = None
    if found is None:
        pending = _input_pending(timeline, progress, ev)
        if pending is not None:
            node, waits, peers = pending[:3]
            found = (node, waits, "input pending", peers)
            reasons.append(
                f"every node waits {STRAGGLER_FACTOR:g}x its usual step time or more at "
                f"{waits:.0%} of its steps or more: the job waits for someone at every few steps"
            )
    if found is None and slow is None and not reasons:
        return None
    tasks = sorted(
        (n for n in ev.facts if n not in outside.sources and not ev.facts[n].missing),
        key=_node_order,
    )
    if found is None:
        # the job slowed down (in the run, or against the baseline), and no signal names the
        # node it waited for
        if slow is not None:
            what = (
                f"ran {slow.factor:.1f}x slower from step {slow.since_step:g} on, at the pace of "
                "a task the logs do not name"
            )
            evidence = [evidence_row(ev, timeline, r, why) for r, why in _slow_rows(progress, slow)]
        else:
            what = (
                f"ran {base_slower:.1f}x slower than the baseline, at the pace of a task the logs "
                "do not name"
            )
            evidence = [
                evidence_row(ev, timeline, r, "a progress report of the slow run")
                for r in _steps(progress)["row"].head(2)
            ]
        return Stall(
            category="straggler",
            node=None,
            time=slow.since if slow is not None else None,
            what=what,
            confidence=0.3,
            evidence=evidence,
            reasons=reasons,
            ambiguity=(
                "no node reports a step time out of line with its peers', no node's step count "
                "lags and none answers late: the logs do not tell which task was slow"
                + (
                    ""
                    if comparison is not None
                    else " (a good run to compare with, --baseline, may)"
                )
            ),
            victims=[],
            details={"factor": slow.factor if slow is not None else base_slower},
        )
    node, factor, how, peers = found
    phrase = {
        "slow": f"its own step time is {factor:.1f}x its peers'",
        "waited for": (
            f"its peers' step time is {factor:.1f}x its own: they spent each step waiting at the "
            "collective for it"
        ),
        "lags": f"it made {factor:.1f}x fewer steps than its peers in the same time",
        "slower than in the baseline": f"its step rate fell most against the baseline ({factor:.1f}x)",
        "answers late": (
            f"it logs its answer to the same event {factor:.2g} s after its peers do, in the slow "
            "window (a task that is stopped or starved of CPU answers late)"
        ),
        "share fell": (
            f"its share of the job's steps fell {factor:.1f}x against its peers' (between two of "
            f"its reports the job's step advanced {share.own:.2g}x as much as before, between "
            f"theirs {share.peers_change:.2g}x): its own pace fell, they made the steps it did not"
            if share is not None
            else ""
        ),
        "input pending": (
            "its input iterator was still waiting for its next batch when training ended (its "
            "GetNext cancelled after its last step), its peers' were not: its input is slower "
            "than a step"
        ),
    }[how]
    reasons.append(f"{node}: {phrase}")
    since_row, since = _first_slow(progress, node, slow)
    untimed = since_row is not None and not bool(
        progress.loc[progress["row"] == since_row, "timed"].any()
    )
    evidence = [
        evidence_row(
            ev,
            timeline,
            since_row,
            f"{node}'s report in the slow window"
            + (" (its lines carry no time: the time shown is inherited)" if untimed else ""),
        )
    ]
    if late is not None:
        since = slow.since
        evidence = [
            evidence_row(ev, timeline, late[3], f"{node} logs this {factor:.2g} s after its peers"),
            evidence_row(ev, timeline, late[4], "a peer's same line"),
        ]
        evidence += [evidence_row(ev, timeline, r, why) for r, why in _slow_rows(progress, slow)]
    if share is not None:
        evidence = [
            evidence_row(ev, timeline, share.before_row, f"{node}'s last report at its early pace"),
            evidence_row(
                ev,
                timeline,
                share.after_row,
                f"{node}'s next reports: the job's step advances {share.own:.2g}x as much",
            ),
        ]
        since_row, since = share.after_row, share.since
        evidence += [
            evidence_row(ev, timeline, r, f"{p}'s report near the same global step")
            for p, r in _nearest_rows(progress, peers[:2], share.after_row)
        ]
    if pending is not None:
        untimed = not bool(progress.loc[progress["row"] == pending[4], "timed"].any())
        evidence = [
            evidence_row(ev, timeline, pending[3], f"{node}'s input was still pending at the end"),
            evidence_row(
                ev,
                timeline,
                pending[4],
                f"{node}'s report of a step the job waited in"
                + (" (its lines carry no time: the time shown is inherited)" if untimed else ""),
            ),
        ]
        since_row, since = pending[4], pending[5]
    evidence += [
        evidence_row(ev, timeline, r, f"{p}'s report of the same step")
        for p, r in (_peer_rows(progress, peers[:2], since_row) if share is None else [])
    ]
    evidence += [
        evidence_row(ev, timeline, r, f"{node}'s own log while it was slow")
        for r in _own_lines(timeline, node, since, progress, _progress_end(progress))
    ]
    finished = any(ev.phases.finished(n) is not None for n in tasks)
    what = (
        (
            f"slowed the job {slow.factor:.1f}x"
            if slow
            else "held the job back"
            if pending is not None
            else "ran slower than its peers"
        )
        + (f" from {pd.Timestamp(since).strftime('%H:%M:%S')} UTC on" if since is not None else "")
        + f" ({phrase})"
        + ("; the job finished, late" if finished else "")
    )
    confidence = min(0.85, 0.45 + 0.08 * factor + (0.1 if slow else 0.0))
    if late is not None:
        confidence = 0.4  # one kind of late answer, not a measured step time
    if pending is not None:
        confidence = 0.45  # one line at the end, not a measured step time
    if share is not None:
        confidence = min(0.7, 0.3 + 0.08 * factor)  # a count of steps, not a measured time
    return Stall(
        category="straggler",
        node=node,
        time=since,
        what=what,
        confidence=confidence,
        evidence=evidence,
        reasons=reasons,
        victims=[p for p in (peers or tasks) if p != node],
        details={"factor": factor, "how": how, "slowdown": slow.factor if slow else None},
    )


def _late_responder(
    timeline: pd.DataFrame, progress: pd.DataFrame, slow: Slowdown, ev: Case
) -> tuple[str, float, list[str], Any, Any] | None:
    """In the slow window, the task that logs its answer to an event its peers answer too
    (the same message template, once per task of its job, within ``LATE_SPREAD_S``)
    ``LATE_S`` or more after them, when no peer is that late: (node, median delay, peers,
    its row, a peer's row)."""
    from analyzer.compare import templates

    ts = pd.to_datetime(timeline["ts"].astype(object), utc=True)
    origin = timeline["ts_origin"].astype(object)
    own_time = origin.isin(["parsed", "epoch", "wrapper", "year_inferred"]).to_numpy()
    keep = (ts >= slow.since).to_numpy() & own_time & ~timeline.index.isin(set(progress["row"]))
    rows = timeline[keep]
    if rows.empty:
        return None
    nodes = rows["node"].astype(str)
    frame = pd.DataFrame(
        {
            "node": nodes.to_numpy(),
            "job": nodes.str.partition(":")[0].to_numpy(),
            "t": templates(rows["message"]).to_pylist(),
            "ts": ts[keep].to_numpy(),
            "row": rows.index.to_numpy(),
        }
    )
    frame = frame[frame["node"].isin([n for n in ev.facts if ":" in n])]
    members = frame.groupby("job")["node"].nunique()
    g = frame.groupby(["job", "t"])
    stats = g.agg(n=("node", "nunique"), lines=("node", "size"), lo=("ts", "min"), hi=("ts", "max"))
    stats = stats[
        (stats["n"] >= 2)
        & (stats["n"] == stats["lines"])
        & (stats["n"] == stats.index.get_level_values("job").map(members).to_numpy())
        & ((stats["hi"] - stats["lo"]).dt.total_seconds() <= LATE_SPREAD_S)
    ]
    if stats.empty:
        return None
    shared = frame.merge(stats[["lo"]], left_on=["job", "t"], right_index=True)
    shared["delay"] = (shared["ts"] - shared["lo"]).dt.total_seconds()
    per_node = shared.groupby("node")["delay"].median()
    if len(per_node) < 2:
        return None
    node = str(per_node.idxmax())
    delay = float(per_node.max())
    others = per_node.drop(index=node)
    if delay < LATE_S or delay < 3 * max(float(others.max()), 0.02):
        return None
    mine = shared[shared["node"] == node].sort_values("delay")
    line = mine.iloc[-1]
    peer = shared[(shared["t"] == line["t"]) & (shared["node"] != node)].iloc[0]
    return node, delay, sorted(map(str, others.index), key=_node_order), line["row"], peer["row"]


@dataclass
class ShareFall:
    node: str
    factor: float  #: its own change over its peers' largest
    own: float  #: the job's steps between its reports, after over before
    peers_change: float  #: ... the same for its peers (the largest)
    step: float  #: the global step from which on
    peers: list[str]
    before_row: Any  #: its last report before, and its first after
    after_row: Any
    since: Any  #: the time of the first report after, when a log with times tells


def _advance(steps: np.ndarray, at: float) -> float | None:
    """The median step advance between consecutive reports after ``at`` over that before
    (``MIN_REPORTS`` of each needed), or None."""
    gaps, ends = np.diff(steps), steps[1:]
    before, after = gaps[ends <= at], gaps[ends > at]
    if len(before) < MIN_REPORTS or len(after) < MIN_REPORTS:
        return None
    base = float(np.median(before))
    return float(np.median(after)) / base if base > 0 else None


def _share_fell(progress: pd.DataFrame) -> ShareFall | None:
    """The node whose share of the job's (global) steps fell (see the module doc): over every
    split at one of its reports, the largest ratio of its own advance change over its peers'
    (every peer with ``MIN_REPORTS`` reports on each side of the split)."""
    rows = _steps(progress)
    rows = rows[rows["step"].notna()]
    series = {
        str(n): g.sort_values("step", kind="stable")
        for n, g in rows.groupby("node")
        if len(g) > 2 * MIN_REPORTS
    }
    if len(series) < 2:
        return None
    values = {n: g["step"].to_numpy(dtype=float) for n, g in series.items()}
    best = None
    for node, steps in values.items():
        splits = steps[MIN_REPORTS:-MIN_REPORTS]
        if len(splits) > SPLITS:  # (a long run: splits on a grid, not at every report)
            splits = splits[np.linspace(0, len(splits) - 1, SPLITS).astype(int)]
        for at in splits:
            own = _advance(steps, at)
            if own is None or own < SHARE_RISE:
                continue
            theirs = [_advance(v, at) for p, v in values.items() if p != node]
            theirs = [t for t in theirs if t is not None]
            if len(theirs) != len(values) - 1 or max(theirs) <= 0:
                continue  # every peer reported on both sides (not one that joined later)
            factor = own / max(theirs)
            if factor >= STRAGGLER_FACTOR and (best is None or factor > best[0]):
                best = (factor, node, at, own, max(theirs))
    if best is None:
        return None
    factor, node, at, own, peers_change = best
    mine = series[node]
    steps = values[node]
    gaps = np.diff(steps)
    base = float(np.median(gaps[steps[1:] <= at]))
    # its first gap at the new pace, from which on the gaps stay there
    big = [
        j
        for j in range(len(gaps))
        if gaps[j] >= SHARE_RISE * base and np.median(gaps[j:]) >= SHARE_RISE * base
    ]
    j = big[0] if big else int(np.searchsorted(steps, at, side="right")) - 1
    before, after = mine.iloc[j], mine.iloc[j + 1]
    timed = rows[rows["timed"].to_numpy(dtype=bool) & (rows["step"] >= after["step"]).to_numpy()]
    return ShareFall(
        node=node,
        factor=factor,
        own=own,
        peers_change=peers_change,
        step=float(at),
        peers=_peers_of(pd.Index(list(values)), node),
        before_row=before["row"],
        after_row=after["row"],
        since=timed["ts"].min() if not timed.empty else None,
    )


def _input_pending(
    timeline: pd.DataFrame, progress: pd.DataFrame, ev: Case
) -> tuple[str, float, list[str], Any, Any, Any] | None:
    """The one task whose log says its input iterator's GetNext was cancelled after its last
    step report (:data:`INPUT_CANCELLED`), in a job whose every reporting node (two or more)
    waits ``STRAGGLER_FACTOR`` times its median step time at ``WAIT_STEPS`` of its steps past
    the first: (node, the smallest such share, peers, its cancelled line, its first long step
    report, the first long step's time in a log that has times). None if no node or several
    nodes say so."""
    from analyzer.diagnose.common import _contains

    steps = _steps(progress)
    steps = steps[steps["step_time_s"].notna() & steps["node"].isin(list(ev.facts))]
    if steps.empty or timeline.empty or steps["node"].nunique() < 2:
        return None
    rest = steps[steps["step"] > steps.groupby("node")["step"].transform("min")]
    usual = rest.groupby("node")["step_time_s"].transform("median")
    long = rest[(rest["step_time_s"] >= STRAGGLER_FACTOR * usual) & (usual > 0)]
    share = long.groupby("node").size().reindex(rest["node"].unique(), fill_value=0)
    share = share / rest.groupby("node").size()
    if share.empty or float(share.min()) < WAIT_STEPS:
        return None
    hit = _contains(timeline["message"], INPUT_CANCELLED)
    lines = timeline[hit & timeline["node"].astype(str).isin(list(share.index)).to_numpy()]
    # after the node's last step report, in its own log's order
    last = steps.sort_values("step").groupby("node").tail(1).set_index("node")
    after = []
    for row, r in zip(lines.index, lines.itertuples(), strict=True):
        mine = last.loc[str(r.node)]
        at = timeline.loc[mine["row"]] if mine["row"] in timeline.index else None
        if at is None:
            continue
        if str(at["file"]) == str(r.file):
            later = int(r.line_no) > int(at["line_no"])
        else:
            later = _utc_one(r.ts) > _utc_one(at["ts"])
        if later:
            after.append((str(r.node), row))
    nodes = {n for n, _ in after}
    if len(nodes) != 1:
        return None
    node = nodes.pop()
    row = next(r for n, r in after if n == node)
    first_long = long[long["node"] == node]["row"]
    timed = long[long["timed"].to_numpy(dtype=bool)]
    return (
        node,
        float(share.min()),
        _peers_of(share.index, node),
        row,
        first_long.iloc[0] if not first_long.empty else None,
        timed["ts"].min() if not timed.empty else None,
    )


def _slowest_against_baseline(comparison: Any) -> str | None:
    """The node whose own step rate fell most against the baseline, when it fell
    ``SLOW_FACTOR`` times and clearly more than its peers' (in a synchronous job all fall
    alike: that names nobody)."""
    slower = {
        n.node: n.baseline_rate / n.rate
        for n in comparison.nodes
        if n.rate and n.baseline_rate and n.rate > 0
    }
    if not slower:
        return None
    node = max(slower, key=lambda n: (slower[n], n))
    others = [v for n, v in slower.items() if n != node]
    stands_out = not others or slower[node] >= 1.5 * float(np.median(others))
    return node if slower[node] >= SLOW_FACTOR and stands_out else None


def _slow_rows(progress: pd.DataFrame, slow: Slowdown) -> list[tuple[Any, str]]:
    rows = _steps(progress)
    before = rows[rows["step"] < slow.since_step]
    after = rows[rows["step"] >= slow.since_step]
    out = []
    if not before.empty:
        out.append((before.iloc[-1]["row"], "the last report at the early pace"))
    if not after.empty:
        out.append((after.iloc[0]["row"], "the first report at the slow pace"))
    return out


def _first_slow(progress: pd.DataFrame, node: str, slow: Slowdown | None) -> tuple[Any, Any]:
    """The first report of ``node`` in the slow window: (timeline row, time)."""
    mine = _steps(progress)
    mine = mine[mine["node"] == node]
    if slow is not None:
        mine = mine[mine["step"] >= slow.since_step]
    if mine.empty:
        return None, slow.since if slow else None
    first = mine.iloc[0]
    when = first["ts"] if bool(first["timed"]) or slow is None else slow.since
    return first["row"], when


def _peer_rows(progress: pd.DataFrame, peers: list[str], row: Any) -> list[tuple[str, Any]]:
    rows = _steps(progress)
    step = rows.loc[rows["row"] == row, "step"]
    out = []
    for p in peers:
        theirs = rows[rows["node"] == p]
        if not step.empty:
            same = theirs[theirs["step"] == step.iloc[0]]
            theirs = same if not same.empty else theirs
        if not theirs.empty:
            out.append((p, theirs.iloc[0]["row"]))
    return out


def _nearest_rows(progress: pd.DataFrame, peers: list[str], row: Any) -> list[tuple[str, Any]]:
    """Per peer, its first report at or past the step of report ``row``."""
    rows = _steps(progress)
    step = rows.loc[rows["row"] == row, "step"]
    out = []
    for p in peers:
        theirs = rows[rows["node"] == p].sort_values("step", kind="stable")
        if not step.empty:
            theirs = theirs[theirs["step"] >= step.iloc[0]]
        if not theirs.empty:
            out.append((p, theirs.iloc[0]["row"]))
    return out


def _progress_end(progress: pd.DataFrame) -> Any:
    """The last timed progress report of the job (training ended there), or None."""
    timed = _steps(progress)
    timed = timed[timed["timed"].to_numpy(dtype=bool)]
    return timed["ts"].max() if not timed.empty else None


def _own_lines(
    timeline: pd.DataFrame, node: str, since: Any, progress: pd.DataFrame, until: Any = None
) -> list:
    """Up to ``OWN_LINES`` warnings or errors of ``node``'s log from ``since`` to ``until`` (the
    end of training: not its teardown) that are not progress: what it said while it was slow."""
    if since is None or timeline.empty:
        return []
    mine = timeline[(timeline["node"] == node).to_numpy(dtype=bool)]
    ts = pd.to_datetime(mine["ts"].astype(object), utc=True)
    inside = (ts >= since) & (ts <= until) if until is not None else ts >= since
    mine = mine[inside.to_numpy()]
    mine = mine[~mine.index.isin(set(progress["row"]))]
    level = mine["level"].astype(object).fillna("")
    mine = mine[level.isin(["WARNING", "ERROR", "FATAL"]).to_numpy()]
    return list(mine.index[:OWN_LINES])
