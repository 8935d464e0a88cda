"""Failures that print nothing: a job that stopped making progress (:mod:`.hang`) or ran at
one slow node's pace (:mod:`.straggler`). Both read the progress each node reported
(:mod:`analyzer.progress`) besides the facts the other steps gathered.

:func:`find_stall` runs both detectors after step 5; when one of them finds its signal and no
failure with an error of its own came first, :func:`stall_diagnosis` makes the verdict from it
(the scoring of error-driven failures does not see such runs: they have no error, or only the
errors of their own teardown).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from analyzer.diagnose.common import (
    CLOSED_RE,
    HEARTBEAT_RPC_RE,
    TIMED_OUT_RE,
    _names,
    _node_order,
    _utc,
    error_texts,
)
from analyzer.diagnose.facts import program_node
from analyzer.identity import task_name
from analyzer.model import Diagnosis, Evidence, RootCause

if TYPE_CHECKING:
    from analyzer.diagnose.case import Case


@dataclass
class Stall:
    """A candidate verdict of :mod:`.hang` or :mod:`.straggler`."""

    category: str  #: ``hang`` or ``straggler``
    node: str | None
    time: Any  #: hang: when its progress stopped; straggler: since when it was slow
    what: str  #: the verb phrase of the summary ("stopped making progress at step 19 …")
    confidence: float
    evidence: list[Evidence] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)  #: why this node, one clause each
    ambiguity: str | None = None
    victims: list[str] = field(default_factory=list)  #: nodes that waited on it / ran at its pace
    details: dict[str, Any] = field(default_factory=dict)


def job_end(ev: Case, skip: set[str] | frozenset[str] = frozenset()) -> Any:
    """The last line any node (but ``skip``) logged (UTC, corrected clocks), or None."""
    ends = [
        ev.clock.correct(n, f.last_time)
        for n, f in ev.facts.items()
        if n not in skip and not f.missing and f.last_time is not None and not pd.isna(f.last_time)
    ]
    return max(ends) if ends else None


def errors_before(ev: Case, t: Any, *, skip: tuple[str, ...] = ("hang",)) -> pd.DataFrame:
    """Error findings (shutdown noise already set aside) logged before ``t``; findings of
    ``skip`` categories (how an outside timeout ended the job) do not count."""
    errors = ev.errors
    if errors.empty or t is None:
        return errors.iloc[0:0]
    times = _utc(errors["ts"])
    early = (times < t).to_numpy() & ~errors["category"].isin(skip).to_numpy()
    return errors[early]


#: Lines of a launcher, scheduler or watchdog ending a job from outside (RE2, one pass).
OUTSIDE_END = (
    r"(?i)\bsend(?:ing)?\s+SIG(?:TERM|KILL|INT|QUIT)\b|\bsent\s+SIG(?:TERM|KILL|INT|QUIT)\b"
    r"|DUE TO TIME LIMIT|time limit (?:reached|exceeded)|no (?:training )?progress for"
    r"|still running after|active longer than specified deadline"
    # supervisord (supervisor/process.py, supervisord.py): told to exit, a program it stopped,
    # a program it killed when the stop's grace (stopwaitsecs) ran out
    r"|received SIG(?:TERM|INT|QUIT|HUP) indicating exit request"
    r"|\bstopped: [\w.-]+ \(terminated by SIG(?:TERM|KILL|INT)\b|\bkilling '[^']+' \(\d+\) with SIGKILL"
)
#: ... and those that say a task outlived its SIGTERM (killed after a grace period).
UNRESPONSIVE = (
    r"(?i)still running after|did not (?:exit|terminate)|\bsend(?:ing)?\s+SIGKILL"
    r"|\bkilling '[^']+' \(\d+\) with SIGKILL"
)
#: ... of which these say so of the task they name alone (its grace ran out)
_GRACE_RAN_OUT = re.compile(r"still running|\bkilling '[^']+' \(\d+\) with SIGKILL")
#: A launcher's name for a task's process (supervisord's ``tf-worker-1``, a pod's name):
#: read as a log file's name is (analyzer.identity.hint_from_name).
_PROGRAM_RE = re.compile(r"\b[A-Za-z][\w.-]*?[-_.]\d+\b")
_TERM = r"(?i)SIGTERM|SIGINT|TIME LIMIT|time limit|\bstopped: [\w.-]+ \(terminated by SIG"
_NODE_RE = re.compile(r"/job:([\w-]+)(?:/replica:\d+)?/task:(\d+)|\b([a-z][\w-]*):(\d+)\b")


@dataclass
class OutsideEnd:
    """How an outside party (launcher, scheduler, watchdog) ended the job, if a log says so."""

    time: Any = None  #: its first such line
    sources: set[str] = field(default_factory=set)  #: log sources that are not tasks
    rows: list[Any] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    stopped: set[str] = field(default_factory=set)  #: tasks told to stop
    stop_times: dict[str, Any] = field(default_factory=dict)  #: ... first told when
    unresponsive: set[str] = field(default_factory=set)  #: tasks killed after outliving that
    says_no_progress: bool = False


def is_task(node: str) -> bool:
    """Is ``node`` a task id (``job:index``) rather than a file stem or a launcher's log?"""
    job, sep, index = node.partition(":")
    return bool(sep and job and index.isdigit())


def outside_end(ev: Case, timeline: pd.DataFrame) -> OutsideEnd:
    """The lines in which something outside the tasks ended the job (see :data:`OUTSIDE_END`):
    found once per case (``ev`` needs only its ``facts``; the gathering finds it before the
    case is built)."""
    memo = getattr(ev, "_memo", None)
    if memo is not None and "outside_end" in memo:
        return memo["outside_end"]
    from analyzer.diagnose.common import _contains

    out = OutsideEnd()
    if timeline.empty:
        return out
    hit = _contains(timeline["message"], OUTSIDE_END)
    if not hit.any():
        return out
    rows = timeline[hit]
    known = set(ev.facts)
    stop_lines: list[set[str]] = []
    for label, r in zip(rows.index, rows.itertuples(), strict=True):
        text = str(r.message or "")
        named = set()
        for m in _NODE_RE.finditer(text):
            node = f"{m[1]}:{m[2]}" if m[1] else f"{m[3]}:{m[4]}"
            if node in known:
                named.add(node)
        for m in _PROGRAM_RE.finditer(text):
            node = program_node(m[0], ev.facts)
            if node is not None:
                named.add(node)
        ts = _utc(pd.Series([r.ts])).iloc[0]
        if out.time is None or (not pd.isna(ts) and ts < out.time):
            out.time = ts
        out.rows.append(label)
        out.texts.append(text)
        if not is_task(str(r.node)):
            out.sources.add(str(r.node))
        after_term = stop_lines and named and re.search(UNRESPONSIVE, text)
        if after_term and (
            any(named < earlier for earlier in stop_lines) or _GRACE_RAN_OUT.search(text)
        ):
            out.unresponsive |= named
        if re.search(_TERM, text):
            stop_lines.append(named)
            out.stopped |= named
            for node in named:
                if not pd.isna(ts) and (node not in out.stop_times or ts < out.stop_times[node]):
                    out.stop_times[node] = ts
        if re.search(r"(?i)no (?:training )?progress for", text):
            out.says_no_progress = True
    return out


def describe_end(ev: Case, outside: OutsideEnd) -> str:
    """How the job ended, as far as the logs tell: a scheduler's or launcher's timeout,
    signals, or logs that simply stop while every process was alive."""
    texts: list[str] = []
    findings = ev.findings
    if findings is not None and not findings.empty:
        limit = findings[(findings["category"] == "hang").to_numpy()]
        if not limit.empty:
            texts.append(f"a scheduler's time limit ({limit.iloc[0]['pattern_id']})")
    if outside.time is not None:
        who = ", ".join(sorted(outside.sources)) or "the scheduler"
        texts.append(
            f"{who} stopped it from outside at {pd.Timestamp(outside.time).strftime('%H:%M:%S')}"
        )
        if outside.unresponsive:
            texts.append(
                f"{_names(sorted(outside.unresponsive, key=_node_order))} did not exit on "
                "SIGTERM and had to be killed"
            )
    if not texts:
        texts.append("every log just stops, with no error and no goodbye")
    return "; ".join(texts)


def evidence_row(ev: Case, timeline: pd.DataFrame, row: Any, why: str) -> Evidence | None:
    """An :class:`Evidence` of timeline row ``row`` (a label), or None if it is not there."""
    if row is None or row not in timeline.index:
        return None
    r = timeline.loc[row]
    node = str(r["node"])
    ts = r["ts"]
    line_no = r.get("line_no")
    return Evidence(
        node=node,
        time=ev.clock.correct(node, _utc(pd.Series([ts])).iloc[0]) if not pd.isna(ts) else None,
        file=r.get("file"),
        line_no=int(line_no) if line_no is not None and not pd.isna(line_no) else None,
        text=str(r.get("message") or "")[:300],
        why=why,
    )


def statuses(stall: Stall, ev: Case) -> dict[str, tuple[str, float | None]]:
    """``failed`` for the stall's node, ``victim`` for those that waited on it / ran at its
    pace, ``missing`` and ``ok`` for the rest."""
    out: dict[str, tuple[str, float | None]] = {}
    for node, f in ev.facts.items():
        if node == stall.node:
            out[node] = ("failed", None)
        elif f.missing:
            out[node] = ("missing", None)
        elif node in stall.victims:
            out[node] = ("victim", None)
        elif node in stall.details.get("outside", ()):
            continue  # a launcher's or scheduler's log: no task of the job
        else:
            out[node] = ("ok", None)
    return out


def stall_diagnosis(stall: Stall, ev: Case, rules: Any, notes: list[str]) -> Diagnosis:
    """The diagnosis of a run whose failure is a stall (see the module doc)."""
    from analyzer.diagnose.phrases import DEFAULT_REMEDIATION
    from analyzer.diagnose.verdict import _finish

    for reason in stall.reasons:
        notes.append(f"{stall.category.capitalize()}: {reason}.")
    notes.append(
        f"Verdict: {stall.node or 'no single node'} is the first failing node; what happened "
        f"there: {stall.category}."
    )
    when = ""  # (the detectors' phrases say when themselves)
    who = (
        f"{stall.node} ({task_name(stall.node)})"
        if stall.node and task_name(stall.node)
        else stall.node or "The job"
    )
    tail = f"; affected: {_names(stall.victims)}" if stall.victims else ""
    remediation = DEFAULT_REMEDIATION.get(stall.category)  # (else the report's advice)
    root = RootCause(
        node=stall.node,
        task=task_name(stall.node) if stall.node else None,
        category=stall.category,
        confidence=round(min(max(stall.confidence, 0.05), 0.99), 3),
        time=stall.time,
        summary=f"{who} {stall.what}{when} [{stall.category}]{tail}.",
        evidence=[e for e in stall.evidence if e is not None][:8],
        remediation=remediation,
        ambiguity=stall.ambiguity,
    )
    return _finish(root, ev, statuses(stall, ev), notes)


def _peers_lost_a_process(ev: Case) -> bool:
    """Did a node's errors (shutdown noise already set aside) say a peer's connection was
    refused or reset?"""
    return not ev.errors.empty and bool(error_texts(ev.errors).str.contains(CLOSED_RE).any())


def find_stall(
    ev: Case, timeline: pd.DataFrame, progress: pd.DataFrame | None, comparison: Any = None
) -> Stall | None:
    """A hang or a straggler when the run shows one (hang first: a job that stopped cannot be
    said to run at anyone's pace), else None."""
    from analyzer.diagnose.hang import detect_hang
    from analyzer.diagnose.straggler import detect_straggler

    if progress is None:
        from analyzer.progress import progress_of

        progress = progress_of(timeline)
    if progress.empty and comparison is None:
        return None
    if ev.zones.offsets and not progress.empty:
        # the same zone fix as the other steps' times (step 0): progress times follow their lines
        from analyzer.diagnose.zones import aligned_times

        aligned = aligned_times(timeline, ev.zones)
        progress = progress.assign(ts=aligned.reindex(progress["row"].to_numpy()).to_numpy())
    if ev.consistency.spec_outliers or ev.consistency.duplicates:
        return None  # a task with another cluster spec stalls its peers: the spec is the cause
    from analyzer.diagnose.scoring import _late_by

    if any(_late_by(n, ev) is not None for n in ev.blocked):
        return None  # a task that came late and never got past start-up: that is the cause
    if _peers_lost_a_process(ev):
        return None  # a refused or reset connection: a process died, it did not hang
    hang = detect_hang(progress, ev, timeline, comparison)
    if hang is not None:
        return _deadline_fired(hang, ev)
    return detect_straggler(progress, ev, timeline, comparison)


def _deadline_fired(stall: Stall, ev: Case) -> Stall:
    """A hang whose peers' own errors after it are timeouts (an operation or RPC deadline set
    and reached: ``DeadlineExceeded``) is ``deadline_exceeded``: the waits had a deadline and
    it fired; a hang is a wait with none."""
    if stall.category != "hang" or stall.node is None or ev.errors.empty:
        return stall
    peers = ev.errors[ev.errors["node"].astype(str) != stall.node]
    if stall.time is not None and not pd.isna(stall.time):
        peers = peers[(_utc(peers["ts"]) >= stall.time).to_numpy(dtype=bool)]
    if peers.empty:
        return stall
    texts = error_texts(peers)
    timed_out = (peers["category"] == "deadline_exceeded") | texts.str.contains(TIMED_OUT_RE)
    # (a heartbeat to the coordination service has a deadline of its own: its expiry says
    # the frozen task stopped answering, not that the peers' own wait had a deadline)
    timed_out &= ~texts.str.contains(HEARTBEAT_RPC_RE)
    # (a step aborted by another's error carries the status of what aborted it)
    timed_out &= ~texts.str.contains("is aborted by")
    if not timed_out.any():
        return stall
    first = peers[timed_out.to_numpy(dtype=bool)].sort_values("ts", kind="stable").iloc[0]
    stall.category = "deadline_exceeded"
    stall.what = (
        f"{stall.what}; {first['node']}'s wait for it then ran out of time (a deadline was set "
        "and reached)"
    )
    return stall


def node_pace(progress: pd.DataFrame) -> pd.DataFrame:
    """Per node: its last step, when it first reported it (its progress stopped there), the
    median interval between its timed reports, its median reported step time, reports."""
    cols = ["last_step", "last_advance", "interval", "step_time", "reports", "first"]
    cols.append("timed_last_step")
    if progress is None or progress.empty:
        return pd.DataFrame(columns=cols)
    prog = progress[progress["source"] != "checkpoint"]
    stepped = prog[prog["step"].notna()]
    g = prog.groupby("node", sort=True)
    out = pd.DataFrame({"reports": g.size(), "first": g["ts"].min()})
    out["timed_last_step"] = np.nan
    out["step_time"] = g["step_time_s"].median()
    out["last_step"] = np.nan
    out["last_advance"] = pd.NaT
    if not stepped.empty:
        out["last_step"] = stepped.groupby("node")["step"].max()
        # when it reached its last step: only lines with a time of their own tell (a Keras bar
        # or a zone-less TF1 line inherits the time of whatever line came before it)
        timed = stepped[stepped["timed"].to_numpy(dtype=bool)]
        if not timed.empty:
            last = timed.groupby("node")["step"].max()
            top = timed[timed["step"].to_numpy() == timed["node"].map(last).to_numpy()]
            out["last_advance"] = top.groupby("node")["ts"].min()
            out["timed_last_step"] = last
    timed = prog[prog["timed"]]
    gaps = timed.groupby("node")["ts"].diff().dt.total_seconds()
    gaps = gaps[gaps > 0]
    out["interval"] = gaps.groupby(timed.loc[gaps.index, "node"]).median()
    return out[cols]
