"""Hang: the job stopped making progress while its processes stayed alive.

Signal (job level), one of: no node reported a new step for much longer than the usual interval
between its reports (``HANG_FACTOR`` times, at least ``HANG_MIN_S``) before the job ended; or a
launcher, scheduler or watchdog stopped the job from outside (:data:`.stall.OUTSIDE_END`) after
no task had logged anything for that long, or saying it made no progress. And: some node had
been training (it reported steps), none said its training finished, and nothing failed with an
error of its own before the end (the errors of the teardown, after the outside kill, do not
count; a heartbeat or collective timeout before it is another verdict).

Which node (points, best first):

- **it stopped first**: its last step came well before its peers' last step (they went on
  without it for a while), or its step count is behind theirs;
- **its peers named it**: warnings or errors after the stall, by peers, naming it (a
  collective, an RPC or a barrier waiting on it);
- **it went quiet**: its log ends at the stall while its peers kept logging until the end;
- **it outlived the SIGTERM** that ended the job (the launcher had to kill it): a stopped or
  stuck process, where its peers exited at once;
- **the one they all wait on**: every node that reports progress stopped together, and exactly
  one parameter server serves them all without reporting progress (alone, an inference: the
  verdict then says that no line shows it stuck);
- **it diverges from the baseline** (``--baseline``): its log is the first to show lines the
  good run never had.

If nothing points at one node, the verdict still says ``hang`` (the job's failure), names the
node whose progress stopped first, and says that the logs could not tell.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from analyzer.diagnose.common import _human_duration, _names, _node_order, _utc
from analyzer.diagnose.stall import (
    UNRESPONSIVE,
    Stall,
    describe_end,
    errors_before,
    evidence_row,
    job_end,
    node_pace,
    outside_end,
)
from analyzer.model import Evidence

if TYPE_CHECKING:
    from analyzer.diagnose.case import Case

HANG_MIN_S = 20.0  #: a stall shorter than this is no hang, whatever the step interval
HANG_FACTOR = 10.0  #: ... nor one shorter than this many usual intervals between reports
LAG_FACTOR = 3.0  #: a node stopped first when its last step came this many intervals earlier
QUIET_FACTOR = 0.5  #: a node went quiet when its peers logged this share of the stall after it
MIN_REPORTS = 3  #: timed progress reports needed to know the usual interval between them


def detect_hang(
    progress: pd.DataFrame, ev: Case, timeline: pd.DataFrame, comparison: Any = None
) -> Stall | None:
    """A :class:`Stall` of category ``hang`` when the run shows one (module doc), else None."""
    every = node_pace(progress)
    if every.empty or every["last_step"].isna().all():
        return None  # no node ever reported a step: a start-up problem, not a stalled training
    outside = outside_end(ev, timeline)
    finished = {n for n in every.index if ev.phases.finished(n) is not None}
    if (
        finished
        and not _left_behind(every, finished, outside)
        and not _held_at_exit(every, finished, outside)
    ):
        return None  # training finished: what came after is not a stall of training
    tasks = {n for n in ev.facts if n not in outside.sources and not ev.facts[n].missing}
    pace = every[every["last_advance"].notna()]
    last_advance = {
        n: ev.clock.correct(n, _utc(pd.Series([t])).iloc[0])
        for n, t in pace["last_advance"].items()
    }
    last_line = job_end(ev, skip=outside.sources)
    end = outside.time if outside.time is not None else last_line
    if end is None or pd.isna(end):
        return None
    interval = float(np.nanmedian(pace["interval"])) if pace["interval"].notna().any() else 0.0
    threshold = max(HANG_MIN_S, HANG_FACTOR * interval)
    stop = max(last_advance.values()) if last_advance else None  # last time anyone advanced
    signs = []
    # (the usual interval must be known: a few timed reports, not one)
    known = pace["interval"].notna().any() and int(pace["reports"].sum()) >= MIN_REPORTS
    if stop is not None and known and (end - stop).total_seconds() >= threshold:
        signs.append(
            f"no node reported a new step for {_human_duration((end - stop).total_seconds())} "
            f"before the job ended (the usual interval between reports is {interval:.3g} s)"
        )
    if outside.time is not None and last_line is not None:
        quiet = (outside.time - last_line).total_seconds()
        if quiet >= threshold:
            signs.append(
                f"no task logged anything for {_human_duration(quiet)} before it was stopped"
            )
        if outside.says_no_progress:
            signs.append("the launcher stopped it for making no progress")
    if not signs:
        return None
    if outside.time is None and not any(ev.facts[n].ending in ("mid-run", "killed") for n in tasks):
        return None  # every task ended by itself (a goodbye, an error): it did not hang
    if stop is None or (last_line is not None and stop > last_line):
        stop = last_line
    # a task the launcher no longer had to stop, which did not say it was done, had died
    gone = tasks - outside.stopped if outside.stopped else set()
    if any(not _said_goodbye(ev, n) for n in gone):
        return None
    cutoff = end if outside.time is not None else stop + pd.Timedelta(seconds=threshold)
    early = errors_before(ev, cutoff)
    if outside.time is not None:
        # the job's own timeouts did not end it (an outside party had to): the symptoms it
        # logged while stuck (cancelled steps, aborted rendezvous) do not explain the stall,
        # only a node's own error would
        early = early[early.index.isin(ev.intrinsic.index)]
    if not early.empty:
        return None  # something failed with an error of its own first
    stalled = max((end - stop).total_seconds(), 0.0)

    points: dict[str, float] = {}
    #: (a reason that names every peer is written only for the nodes whose reasons are shown)
    reasons: dict[str, list[str | Callable[[], str]]] = {}
    rows: dict[str, list[tuple[Any, str]]] = {}

    def add(
        node: str, p: float, why: str | Callable[[], str], row: Any = None, row_why: str = ""
    ) -> None:
        points[node] = points.get(node, 0.0) + p
        reasons.setdefault(node, []).append(why)
        if row is not None:
            rows.setdefault(node, []).append((row, row_why or why))

    def said(node: str) -> list[str]:
        return [w() if callable(w) else w for w in reasons.get(node, [])]

    last_row = _last_report_rows(progress)
    # 1. stopped first: its last step well before the last step of its peers ...
    lag_min = max(LAG_FACTOR * interval, 1.0)
    latest = _two_largest(last_advance)  # (a peer's latest: the latest, or the runner-up)
    for node, t in last_advance.items():
        ahead = [u for n, u in latest if n != node][-1:]
        if ahead and (max(ahead) - t).total_seconds() >= lag_min:
            lead = (max(ahead) - t).total_seconds()
            add(
                node,
                3.0 + min(lead / max(threshold, 1.0), 1.0),
                f"its last step ({every.loc[node, 'last_step']:g}) came {_human_duration(lead)} "
                "before its peers' last step: it stopped first",
                last_row.get(node),
                "its last progress report",
            )
    # ... or its step count behind theirs (reports without a time of their own count here)
    steps = every["last_step"].dropna()
    per_report = _step_per_report(progress)
    highest = _two_largest(steps.to_dict())
    for node, last in steps.items():
        ahead = [u for n, u in highest if n != node][-1:]
        if node in points or not len(ahead):
            continue
        if ahead[0] - last >= max(2.0, LAG_FACTOR * per_report):
            add(
                str(node),
                3.0,
                f"its last step ({last:g}) is behind its peers' ({ahead[0]:g}): it stopped first",
                last_row.get(str(node)),
                "its last progress report",
            )
    # 2. peers named it after the stall (waits, RPCs, collectives)
    blames = ev.blames
    if not blames.empty:
        peer = ~blames["self"].to_numpy(dtype=bool)
        after = blames[peer & (_utc(blames["ts"]) >= stop).to_numpy()]
        for node, group in after.groupby("blamed"):
            node = str(node)
            if node not in tasks:
                continue
            victims = sorted(set(map(str, group["victim"])) - {node}, key=_node_order)
            if victims:
                add(
                    node,
                    2.0 + min(len(victims) - 1, 2),
                    f"after the stall {_names(victims)} named it in their waits",
                    group.iloc[0]["row"],
                    f"a peer waiting on {node}",
                )
    # 3. went quiet: its log ends at the stall while its peers kept logging
    lasts = {
        n: ev.clock.correct(n, ev.facts[n].last_time)
        for n in tasks
        if ev.facts[n].last_time is not None and not pd.isna(ev.facts[n].last_time)
    }
    kept_on = {n for n, t in lasts.items() if (t - stop).total_seconds() >= QUIET_FACTOR * stalled}
    for node, t in lasts.items():
        if node in kept_on or t < stop - pd.Timedelta(seconds=threshold) or not kept_on:
            continue  # logged on, had stopped logging long before (a quiet server), or alone
        # (not in kept_on: every one of them is another node)
        add(
            node,
            2.0,
            lambda t=t: (
                f"its log ends {_human_duration((end - t).total_seconds())} before the job's "
                f"end, at the stall, while {_names(sorted(kept_on, key=_node_order))} kept "
                "logging"
            ),
            ev.facts[node].tail_rows[-1] if ev.facts[node].tail_rows else None,
            "its last line: nothing after it",
        )
    # 4. it outlived the SIGTERM that ended the job: a stopped or stuck process
    others = sorted(outside.stopped - outside.unresponsive, key=_node_order)
    for node in sorted(outside.unresponsive & tasks, key=_node_order) if others else []:
        add(
            node,
            3.0,
            lambda: (
                f"it did not exit on the SIGTERM that ended the job while {_names(others)} "
                "did: a stopped or stuck process"
            ),
            next(
                (
                    r
                    for r, t in zip(outside.rows, outside.texts, strict=True)
                    if node in t and re.search(UNRESPONSIVE, t)
                ),
                None,
            ),
            "it had to be killed",
        )
    # 4b. every trainer finished, yet the job could not end: what outlived the SIGTERM and
    # never trained (it only serves) held them
    if _held_at_exit(every, finished, outside):
        for node in sorted((outside.unresponsive & tasks) - set(every.index), key=_node_order):
            add(
                node,
                2.0,
                "every task that trained said its training finished, yet the job did not end; "
                "it never trained (it only serves) and it too outlived the SIGTERM",
            )
    # 5. the one they all wait on: every reporting node stopped together; one server
    together = not last_advance or (
        (max(last_advance.values()) - min(last_advance.values())).total_seconds() < lag_min
    )
    servers = [n for n in tasks if n not in every.index and n.partition(":")[0] == "ps"]
    if together and len(servers) == 1 and not finished:  # (a finished peer was served fine)
        add(
            servers[0],
            1.5,
            f"every node that reports progress ({_names(sorted(every.index, key=_node_order))})"
            f" stopped at the same time, and {servers[0]} is the one task serving them all",
        )
    # 6. the baseline: the node that diverges from the good run first
    if comparison is not None and comparison.first_new in tasks:
        add(comparison.first_new, 1.0, "its log is the first to diverge from the baseline run")

    ranked = sorted(points, key=lambda n: (-points[n], last_advance.get(n, stop), _node_order(n)))
    stoppers = last_advance or {n: stop for n in every.index}
    first_stop = min(stoppers, key=lambda n: (stoppers[n], _node_order(n)))
    node = ranked[0] if ranked else first_stop
    runner = ranked[1] if len(ranked) > 1 else None
    confidence = 1 - 0.5 ** (max(points.get(node, 0.0), 0.5) / 2)
    ambiguity = None
    if not ranked:
        ambiguity = (
            "every node stopped at the same step and none of them named another: the logs do not "
            f"tell which node hung first ({node} is the one whose last step came first)"
        )
        confidence = 0.35
    elif runner is not None and points[node] - points[runner] < 2:
        confidence *= 0.7
        ambiguity = f"{runner} is almost as likely ({'; '.join(said(runner))})"
    elif node in servers and len(reasons.get(node, [])) == 1 and together:
        # the one server is an inference from the shape of the job, not a line of its log
        ambiguity = (
            f"no line shows {node} stuck: it is named only because every node that reports "
            "progress stopped at the same time and it serves them all; a worker blocked inside "
            "a synchronous step stops its peers the same way"
        )
    step = every.loc[node, "last_step"] if node in every.index else None
    victims = sorted((n for n in tasks if n != node), key=_node_order)
    how = describe_end(ev, outside)
    evidence = [evidence_row(ev, timeline, r, why) for r, why in rows.get(node, [])]
    last = ev.facts[node].last_line if node in ev.facts else None
    own = {(e.file, e.line_no) for e in evidence if e is not None and e.node == node}
    if last and last.get("message") and (last.get("file"), last.get("line_no")) not in own:
        line_no = last.get("line_no")
        evidence.insert(
            len([e for e in evidence if e is not None and e.node == node]),
            Evidence(
                node=node,
                time=ev.clock.correct(node, _utc(pd.Series([last.get("ts")])).iloc[0]),
                file=last.get("file"),
                line_no=int(line_no) if line_no is not None and not pd.isna(line_no) else None,
                text=str(last["message"])[:300],
                why=f"{node}'s last line: nothing after it while the job waited",
            ),
        )
    if outside.rows and outside.rows[0] not in [r for r, _ in rows.get(node, [])]:
        evidence.append(evidence_row(ev, timeline, outside.rows[0], "how the job ended"))
    for peer in [n for n in sorted(every.index, key=_node_order) if n != node][:2]:
        evidence.append(
            evidence_row(ev, timeline, last_row.get(peer), f"{peer}'s last progress report")
        )
    # (a peer finished: the job's last advance was that peer's, not when this node stopped)
    at = last_advance.get(node, None if finished else stop)
    what = (
        "stopped making progress"
        + (
            f" at {pd.Timestamp(at).strftime('%Y-%m-%d %H:%M:%S')} UTC"
            if at is not None and not pd.isna(at)
            else ""
        )
        + (f" (the job's last step: {step:g})" if step is not None and not pd.isna(step) else "")
        + f" while staying alive; the job waited {_human_duration(stalled)} until it was ended "
        f"({how})"
    )
    return Stall(
        category="hang",
        node=node,
        time=at,
        what=what,
        confidence=confidence,
        evidence=evidence,
        reasons=[
            "; ".join(signs) + f"; how it ended: {how}",
            *[f"{node}: {r}" for r in said(node)],
        ],
        ambiguity=ambiguity,
        victims=victims,
        details={
            "stalled_s": stalled,
            "interval_s": interval,
            "last_step": {n: float(v) for n, v in steps.items()},
            "points": points,
            "outside": sorted(outside.sources),
        },
    )


_GOODBYE = re.compile(
    r"(?i)\b(?:done|finished|completed?|exiting|shutting down|shut down|goodbye|stopped)\b"
)


def _two_largest(values: dict) -> list[tuple[Any, Any]]:
    """The two largest (node, value) pairs, smaller first: the largest of the others of any
    node is the last of them that is not that node."""
    return [(n, v) for v, n in heapq.nlargest(2, ((v, n) for n, v in values.items()))][::-1]


def _left_behind(every: pd.DataFrame, finished: set[str], outside: Any) -> list[str]:
    """Tasks that reported steps, never said their training finished while a peer did, and
    were still running when an outside party stopped the job for making no progress: they
    were stuck, not done (in asynchronous training a peer finishes without them)."""
    if outside.time is None or not outside.says_no_progress:
        return []
    return [n for n in every.index if n not in finished and n in outside.stopped]


def _held_at_exit(every: pd.DataFrame, finished: set[str], outside: Any) -> bool:
    """Did every task that reported steps say its training finished, while an outside party
    still had to stop the job for making no progress and a task that never reported a step
    outlived its SIGTERM? The job was held at its end by a server, not done."""
    if outside.time is None or not outside.says_no_progress or not len(every):
        return False
    return set(every.index) <= finished and bool(outside.unresponsive - set(every.index))


def _said_goodbye(ev: Case, node: str) -> bool:
    """Does ``node``'s log end cleanly, or with a last word that says it was done?"""
    f = ev.facts[node]
    if f.ending == "clean":
        return True
    last = (f.last_line or {}).get("message")
    return bool(last and _GOODBYE.search(str(last)))


def _step_per_report(progress: pd.DataFrame) -> float:
    """The median step difference between a node's consecutive reports (1 when unknown)."""
    stepped = progress[progress["step"].notna() & (progress["source"] != "checkpoint")]
    if stepped.empty:
        return 1.0
    d = stepped.groupby("node")["step"].diff()
    d = d[d > 0]
    return float(d.median()) if len(d) else 1.0


def _last_report_rows(progress: pd.DataFrame) -> dict[str, Any]:
    """Per node, the timeline row of its first report of its highest step."""
    stepped = progress[progress["step"].notna()]
    if stepped.empty:
        return {}
    last = stepped.groupby("node")["step"].idxmax()
    return {str(n): stepped.loc[i, "row"] for n, i in last.items()}
