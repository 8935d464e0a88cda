"""Step 7, the verdict: category, statuses, summary, confidence and the notes."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from typing import Any

import pandas as pd

from analyzer.diagnose.anchors import AnchorClock
from analyzer.diagnose.case import Candidate, Case, _corrected
from analyzer.diagnose.clocks import ClockEstimate, _corrected_times
from analyzer.diagnose.common import (
    CLOSED_RE,
    HEARTBEAT_RPC_RE,
    MAX_EVIDENCE,
    SILENCE_BURST_S,
    SILENCE_GRACE_S,
    SKEW_MIN_S,
    SPEC_CONSEQUENCES,
    START_WAIT_S,
    TIMED_OUT_RE,
    _clip,
    _human_duration,
    _names,
    _node_order,
    _records,
    _rule,
    _seconds,
    _utc,
    _values,
    error_texts,
)
from analyzer.diagnose.endings import service_gave_up_on, waited_on_by_heartbeats
from analyzer.diagnose.evidence import (
    _blame_evidence,
    _blocked_evidence,
    _missing_evidence,
    _root_evidence,
    _victim_evidence,
)
from analyzer.diagnose.phrases import CATEGORY_PHRASE, DEFAULT_REMEDIATION, ENDING_TEXT
from analyzer.diagnose.scoring import _blame_groups, _joined_tasks, _rank
from analyzer.diagnose.shapes import odd_shape_members
from analyzer.diagnose.shared_files import shared_write
from analyzer.diagnose.silence import detect_silence
from analyzer.diagnose.stall import is_task
from analyzer.diagnose.zones import ZoneFix
from analyzer.identity import task_name
from analyzer.model import Diagnosis, Evidence, NodeReport, RootCause


def _root_category(node: str, c: Candidate, ev: Case) -> tuple[str, str | None]:
    """(category, pattern id) of what happened at the root node itself."""
    f = ev.facts.get(node)
    spec_odd = node in ev.consistency.spec_outliers
    if c.intrinsic is not None:
        category = str(c.intrinsic["category"])
        pattern = c.intrinsic.get("pattern_id")
        if spec_odd and category in SPEC_CONSEQUENCES:
            return "cluster_spec_mismatch", None
        if pattern in FROZE:
            # its own lines say it froze, alive: it failed of its peers' wait on it
            return _peers_gave_up(node, ev) or "hang", pattern
        if pattern in BARE_KILL and _stopped_before_killed(node, c, ev):
            return "preemption", None
        if category == "preemption" and node == ev.woken_waited_on():
            # the SIGTERM that ended the job woke it: its peers had timed out waiting on it
            return _waited_on_category(node, ev), None
        if shared_write(node, c, ev) is not None:
            return "concurrent_write", None  # its error names a file several tasks wrote
        if category == "node_crash" and (gave_up := _gave_up_before_exit(node, c, ev)):
            return gave_up, None
        return category, c.intrinsic.get("pattern_id")
    if spec_odd or node in ev.consistency.duplicates:
        return "cluster_spec_mismatch", None
    if c.intrinsic is None and node in odd_shape_members(ev):
        return "shape_mismatch", None
    if node in ev.consistency.version_outliers:
        return "version_mismatch", None
    if (said := _launcher_saw_die(node, ev)) is not None:
        return said
    if (
        (f is None or f.missing)  # (no log; or not even in a spec: only its peers name it)
        # (a job that never got going with no error at all: nobody says its peers lost it)
        and (ev.blocked or ev.ended_from_outside() or (ev.never_trained() and ev.errors.empty))
        and (ev.errors.empty or _never_up(node, ev))
    ):
        return "session_blocked", None
    if (f is None or f.missing or node in ev.silent or f.ending in ("killed", "mid-run")) and (
        notice := _outside_notice(node, ev)
    ) is not None:
        return notice
    if c.intrinsic is None and node in (ev.stuck_waited_on(), ev.woken_waited_on()):
        return _waited_on_category(node, ev), None
    if node in ev.silent and (gave_up := _peers_gave_up(node, ev)):
        return gave_up, None
    if node not in ev.silent and f is not None and _only_waited_for(node, ev):
        if _died_while_awaited(node, ev):
            return "node_crash", None
        if _up_while_awaited(node, ev):
            return "cluster_spec_mismatch", None
        return "session_blocked", None
    if node in ev.blocked and node not in ev.silent:
        return "session_blocked", None
    if (
        f is not None
        and not f.missing
        and node not in ev.silent
        and f.ending == "exception"
        and (unplaced := _unplaced_errors(node, ev)) is not None
    ):
        # its log ends on its own error about a peer no log here is (an address outside the
        # logs given): what it says happened is the category, not a crash of its own
        return unplaced
    if (
        f is None
        or f.missing
        or node in ev.silent
        or f.ending in ("killed", "mid-run", "exception")
    ):
        return "node_crash", None
    own = ev.errors[ev.errors["node"] == node].sort_values("ts")
    if not own.empty:
        return str(own.iloc[0]["category"]), own.iloc[0].get("pattern_id")
    return "node_crash", None


#: Findings whose line says the task's process was stopped (frozen, alive), not that it died.
FROZE = frozenset({"process.shell_job_stopped"})
#: Findings whose line says only that SIGKILL came, naming no sender (the shell's "Killed"): the
#: OOM killer's usual word, and also a stopper's escalation after its SIGTERM's grace.
BARE_KILL = frozenset({"memory.shell_killed"})


def _stopped_before_killed(node: str, c: Candidate, ev: Case) -> bool:
    """Was the SIGKILL that ``node``'s bare kill line reports the escalation of a stop: did the
    task first log that it was told to stop (TF's ``SIGTERM caught``, a preemption notice:
    :meth:`Case.notices`), not stopped together with the whole job? The OOM killer sends no
    SIGTERM first; Kubernetes, Slurm, systemd and runit send SIGKILL after a grace."""
    notice = ev.notices().get(node)
    if notice is None:
        return False
    told = _utc(pd.Series([notice.get("ts")])).iloc[0]
    killed = _utc(pd.Series([c.intrinsic.get("ts")])).iloc[0]  # type: ignore[union-attr]
    return bool(pd.notna(told) and pd.notna(killed) and told <= killed)


def _unplaced_errors(node: str, ev: Case) -> tuple[str, str | None] | None:
    """(category, pattern id) of ``node``'s first error that names a peer none of the logs is
    (its blame could not be placed), or None."""
    own = ev.errors[(ev.errors["node"] == node).to_numpy(dtype=bool)]
    if own.empty:
        return None
    placed = set(ev.blames["row"]) if not ev.blames.empty else set()
    rest = own[~own.index.isin(placed)]
    rest = rest[(rest["category"] != "node_crash").to_numpy(dtype=bool)]
    if rest.empty:
        return None
    first = rest.sort_values("ts").iloc[0]
    return str(first["category"]), first.get("pattern_id")


#: What a launcher or scheduler may say happened to a task it ran
_DEATHS = ("node_crash", "oom")


def _launcher_saw_die(node: str, ev: Case) -> tuple[str, str | None] | None:
    """(category, pattern id) when a job-level log (a launcher's or scheduler's) says the task
    died (``mpirun noticed that process rank 0 ... exited on signal 9``, srun's ``task 0:
    Killed``): its word on how the task ended outranks what the task was last doing (waiting
    for its peers at start-up)."""
    b = ev.blames
    if b is None or b.empty or not ev.outside:
        return None
    said = b[(b["blamed"] == node) & b["victim"].isin(ev.outside)]
    # (one launcher line says the job failed, another how: a SIGTERM from outside is the more
    # telling word — GNU parallel's "This job failed:" and its joblog's Exitval 143)
    taken = said[(said["category"] == "preemption").to_numpy(dtype=bool)]
    died = said[said["category"].isin(_DEATHS).to_numpy(dtype=bool)]
    if died.empty:
        return None
    first = (taken if not taken.empty else died).sort_values("ts").iloc[0]
    return str(first["category"]), first.get("pattern_id")


def _outside_notice(node: str, ev: Case) -> tuple[str, str | None] | None:
    """(category, pattern id) of the first error a job-level log (a launcher's or scheduler's,
    not a task's) logged naming ``node``: what the outside says it did to the task (preempted
    or evicted it). A task whose log stops and whom such a notice names was taken away."""
    b = ev.blames
    if b.empty:
        return None
    named = b[(b["blamed"] == node) & ~b["self"].astype(bool)]
    named = named[~named["victim"].map(lambda v: is_task(str(v))).astype(bool)]
    named = named[(named["severity"] == "error").to_numpy() & (named["category"] != "hang")]
    if named.empty:
        return None
    first = named.sort_values("ts").iloc[0]
    return str(first["category"]), first.get("pattern_id")


def _never_up(node: str, ev: Case) -> bool:
    """Did ``node`` (no log here) never come up: no task ever trained, and the coordination
    service saw its peers join but never it, or every peer that names it first did so at
    start-up (its port refused them from their first try)? Then the job waited for it at
    start-up rather than lost it."""
    if ev.phases is None or any(
        ev.phases.furthest(n) in ("training", "checkpoint", "finished") for n in ev.facts
    ):
        return False
    joined = _joined_tasks(ev)
    if joined and node not in joined:
        return True  # the coordination service saw its peers join, never it
    against = ev.blames[(ev.blames["blamed"] == node) & ~ev.blames["self"].astype(bool)]
    if against.empty:
        return False
    first = against.sort_values("ts").drop_duplicates("victim", keep="first")
    return bool(first["early"].all())


def _only_waited_for(node: str, ev: Case) -> bool:
    """Are all early blames against ``node`` start-up waits (none says it failed later)?"""
    against = ev.blames[(ev.blames["blamed"] == node) & ~ev.blames["self"] & ev.blames["early"]]
    return bool(len(against)) and (against["category"] == "session_blocked").all()


def _died_while_awaited(node: str, ev: Case) -> bool:
    """Was ``node`` up before its peers began to wait for it, and did its log stop while they
    still waited? Then it did not start late or never: it started and died (a task that never
    started leaves no log; a late one starts after the waiting began)."""
    f = ev.facts.get(node)  # (None: a task only its peers name, under no name of a log's)
    if f is None or f.first_time is None or f.last_time is None:
        return False
    if f.ending not in ("mid-run", "killed"):
        return False
    waits = ev.blames[
        (ev.blames["blamed"] == node)
        & ~ev.blames["self"]
        & (ev.blames["category"] == "session_blocked")
    ]
    if waits.empty or {node, *_values(waits["victim"])} & set(ev.clock.applied):
        return False  # start times compared across a corrected clock: a late start looks early
    times = _corrected_times(waits["victim"], _utc(waits["ts"]), ev.clock)
    started = ev.clock.correct(node, f.first_time)
    stopped = ev.clock.correct(node, f.last_time)
    # how long they waited: to their last wait, or, if a waiter never got further, to the end
    # of the record (it waits on silently until the job is ended)
    waited = times.max()
    if set(_values(waits["victim"])) & ev.phases.serving():
        ends = [f.last_time for f in ev.facts.values() if f.last_time is not None]
        waited = max([waited, *(t for t in ends if not pd.isna(t))])
    return bool(started <= times.min() and stopped + pd.Timedelta(seconds=START_WAIT_S) <= waited)


def _up_while_awaited(node: str, ev: Case) -> bool:
    """Had ``node`` started its server before its peers began to wait for it, and did its log
    go on, with no error and no further phase, for as long as they waited? Then it was up all
    along and never reached them: it was told another place to join (another leader or
    peer address, another index) than the one they wait at."""
    f = ev.facts.get(node)
    if f is None or f.missing or f.first_time is None or f.last_time is None:
        return False
    if ev.phases is None or ev.phases.furthest(node) != "server":
        return False
    if not ev.errors.empty and (ev.errors["node"] == node).any():
        return False
    waits = ev.blames[
        (ev.blames["blamed"] == node)
        & ~ev.blames["self"]
        & (ev.blames["category"] == "session_blocked")
    ]
    if waits.empty or {node, *_values(waits["victim"])} & set(ev.clock.applied):
        return False  # (start times compared across a corrected clock: see above)
    times = _corrected_times(waits["victim"], _utc(waits["ts"]), ev.clock)
    started = ev.clock.correct(node, ev.phases.started().get(node, f.first_time))
    stopped = ev.clock.correct(node, f.last_time)
    return bool(started <= times.min() and stopped >= times.max())


def _first_reactions(
    node: str, ev: Case, naming: bool = False, heartbeats: bool = True
) -> pd.DataFrame:
    """Each peer's first error within ``SILENCE_BURST_S`` after ``node`` went quiet (with
    ``naming``: its first one that names ``node``; without ``heartbeats``: leaving out the
    coordination agent's heartbeat errors)."""
    stop = ev.clock.correct(node, ev.facts[node].last_time)
    peers = ev.errors[ev.errors["node"] != node]
    if naming:
        rows = [] if ev.blames.empty else list(ev.blames.loc[ev.blames["blamed"] == node, "row"])
        peers = peers[peers.index.isin(rows)]
    if not heartbeats and not peers.empty:
        peers = peers[~error_texts(peers).str.contains(HEARTBEAT_RPC_RE).to_numpy(dtype=bool)]
    if peers.empty:
        return peers
    times = _corrected_times(peers["node"], _utc(peers["ts"]), ev.clock).set_axis(peers.index)
    window = peers[(times >= stop) & (times <= stop + pd.Timedelta(seconds=SILENCE_BURST_S))]
    return window.sort_values("ts").drop_duplicates("node")


def _peers_timed_out(node: str, ev: Case) -> bool:
    """After ``node`` went quiet, did its peers time out (it hung) rather than lose the
    connection (it died)? A dead process closes its sockets; a hung one keeps them open.
    What their first errors naming it say counts (when none names it, their first errors),
    whichever rule named them: a deadline's status too; heartbeats to the coordination
    service left out. A bare status naming no one (a step of its own aborted) says nothing of
    how it was lost."""
    # (a heartbeat to the coordination service that ran out of time is its liveness check,
    # not a wait of the job's own: those errors are left out)
    firsts = _first_reactions(node, ev, naming=True, heartbeats=False)
    if firsts.empty:
        firsts = _first_reactions(node, ev, heartbeats=False)
    if firsts.empty:
        return False
    texts = error_texts(firsts)
    timed_out = (firsts["category"] == "deadline_exceeded") | texts.str.contains(TIMED_OUT_RE)
    # (a step aborted by another's error carries the status of what aborted it)
    timed_out &= ~texts.str.contains("is aborted by")
    return bool(timed_out.mean() > 0.5)


def _waited_on_category(node: str, ev: Case) -> str:
    """What a task its peers waited on (it outlived the stop, or the stop woke it) failed of:
    the coordination service's heartbeat check giving up on it (its heartbeats to the service
    it hosts timed out, or the service named it) or its peers' deadlines."""
    if waited_on_by_heartbeats(node, ev) or service_gave_up_on(node, ev):
        return "coordination_failure"
    return "deadline_exceeded"


def _peers_gave_up(node: str, ev: Case) -> str | None:
    """After ``node`` went quiet, did its peers give up waiting on it — a timeout
    (``deadline_exceeded``) or the coordination service's heartbeat check naming it
    (``coordination_failure``) — rather than lose the connection (it died)? The category most
    of their first errors then have, or None."""
    if _peers_timed_out(node, ev):
        return "deadline_exceeded"
    firsts = _first_reactions(node, ev)
    if firsts.empty or error_texts(firsts).str.contains(CLOSED_RE).any():
        return None  # a refused or reset connection: its process was gone, it died
    # the service gave up on *it*: a coordination error that names it (a heartbeat timeout
    # names its task; a bare "ABORTED" of a peer's own step names no one)
    naming = _first_reactions(node, ev, naming=True).index
    # a heartbeat that timed out went to the service's host, the chief (else worker 0)
    leader = next((n for n in ("chief:0", "master:0", "worker:0") if n in ev.facts), None)
    heartbeat = error_texts(firsts).str.contains(HEARTBEAT_RPC_RE) & (node == leader)
    gave_up = (firsts["category"] == "coordination_failure") & (
        firsts.index.isin(list(naming)) | heartbeat
    )
    if gave_up.mean() > 0.5:
        return "coordination_failure"
    return None


def _gave_up_before_exit(node: str, c: Candidate, ev: Case) -> str | None:
    """A task whose own first error says it ended (an exit, a kill: ``node_crash``) only after
    its peers had given up waiting on it had stopped answering before it ended: the launcher or
    the job's teardown ended it (a frozen process killed when the job failed). Read as
    :func:`_peers_gave_up` reads a silent task's peers, on their first errors before its end
    (those naming it; when none does, their first errors): timeouts (heartbeats to the
    coordination service left out) → ``deadline_exceeded``; the service's heartbeat check
    naming it, or its peers' heartbeats to it timing out when it hosts the service →
    ``coordination_failure``; a closed connection → None (it was gone first)."""
    t = _utc(pd.Series([c.intrinsic.get("ts")]))  # type: ignore[union-attr]
    if t.isna().all():
        return None
    ended = _corrected_times(pd.Series([node]), t, ev.clock).iloc[0]
    peers = ev.errors[ev.errors["node"] != node]
    if peers.empty:
        return None
    times = _corrected_times(peers["node"], _utc(peers["ts"]), ev.clock).set_axis(peers.index)
    peers = peers[(times < ended).to_numpy(dtype=bool)]
    b = ev.blames
    named_rows = [] if b.empty else list(b.loc[b["blamed"] == node, "row"])
    named = peers[peers.index.isin(named_rows)]
    firsts = (named if not named.empty else peers).sort_values("ts").drop_duplicates("node")
    if firsts.empty:
        return None
    texts = error_texts(firsts)
    if texts.str.contains(CLOSED_RE).any():
        return None  # a refused or reset connection: its process was gone first
    heartbeat = texts.str.contains(HEARTBEAT_RPC_RE)
    timed_out = (firsts["category"] == "deadline_exceeded") | texts.str.contains(TIMED_OUT_RE)
    timed_out &= ~texts.str.contains("is aborted by") & ~heartbeat
    if timed_out.mean() > 0.5:
        return "deadline_exceeded"
    leader = next((n for n in ("chief:0", "master:0", "worker:0") if n in ev.facts), None)
    gave_up = (firsts["category"] == "coordination_failure") & (
        firsts.index.isin(named_rows) | (heartbeat & (node == leader))
    )
    if gave_up.mean() > 0.5:
        return "coordination_failure"
    return None


def _confidence(cands: list[Candidate]) -> float:
    top = cands[0].score
    conf = 1 - 0.5 ** (max(top, 0.5) / 2)
    if len(cands) > 1 and top - cands[1].score < 2:
        conf *= 0.7
    return conf


def _what_happened(node: str, category: str, ev: Case) -> str:
    """The verb phrase of the summary: what the root node did, as far as the logs tell."""
    f = ev.facts.get(node)
    if f is not None and f.missing:
        if category == "session_blocked":
            return "never joined the cluster: it left no log while its peers waited for it"
        return (
            f"{CATEGORY_PHRASE.get(category, category)} (it left no log; inferred from its peers)"
        )
    if node in ev.silent and category == "deadline_exceeded":
        return "hung: its log stops mid-run and its peers then time out waiting for it"
    if node in ev.silent and category == "coordination_failure":
        return (
            "stopped answering: its log stops mid-run and the coordination service then gives "
            "up on it (no heartbeats)"
        )
    if category == "deadline_exceeded" and node == ev.stuck_waited_on():
        return (
            "stopped answering while it stayed alive: its peers timed out waiting on it, and it "
            "did not exit on the SIGTERM that ended the job"
        )
    if node in ev.silent and category == "node_crash":
        return "died without logging an error: its log stops mid-run"
    if category == "node_crash" and node in ev.cut_off():
        if ev.phases.end is not None:
            peers = (
                "while every peer's log ends cleanly"
                if any(f.ending == "clean" for f in ev.facts.values())
                else "the only trainer; its peers only serve, and their logs end with the job"
            )
            return (
                "died after its training finished (saving or shutting down): its log ends "
                f"with no goodbye, the only one that does, {peers}"
            )
        if ev.phases.furthest(node) == "training":
            return (
                "died while it trained: its log ends mid-training with no goodbye, while its "
                "peers' logs end cleanly and no node finished training"
            )
        return (
            "died before training: its log ends with no goodbye, the only one that does, while "
            "every peer's log ends cleanly and no node trained to the end"
        )
    if category == "node_crash" and node in ev.never_finished():
        where = ev.phases.furthest(node)
        return (
            "died while its peers trained on: its log ends mid-run with no goodbye"
            + (f" (in the {where} phase)" if where else "")
            + ", and they said their training finished"
        )
    if category == "node_crash" and node in ev.restarted():
        return (
            "died and was started again: its first run's log stops with no goodbye and its "
            "process then starts over (a restart by its supervisor, kubelet or launcher)"
        )
    if category == "node_crash" and node in ev.gone_before_stop():
        where = ev.phases.furthest(node)
        return (
            "died before the job was stopped from outside: the stop named every other task, "
            "not it" + (f" (its log ends in the {where} phase, with no error)" if where else "")
        )
    if category == "node_crash" and node in ev.waited_for() and _died_while_awaited(node, ev):
        where = ev.phases.furthest(node)
        return "went silent while its peers waited for it" + (
            f" (its log ends in the {where} phase, with no error)" if where else ""
        )
    if category == "session_blocked" and node in ev.waited_for():
        late = _late_start(node, ev)
        return "kept its peers waiting at start-up" + (
            f" (its log starts {_human_duration(late)} after theirs)" if late else ""
        )
    return CATEGORY_PHRASE.get(category, category)


def _late_start(node: str, ev: Case) -> float | None:
    """Seconds by which ``node``'s log starts after the median of its peers', if it does."""
    starts = {
        n: ev.clock.correct(n, f.first_time)
        for n, f in ev.facts.items()
        if f.first_time is not None and not pd.isna(f.first_time)
    }
    if node not in starts or len(starts) < 2:
        return None
    others = sorted(t for n, t in starts.items() if n != node)
    late = _seconds(starts[node] - others[len(others) // 2])
    return late if late >= SILENCE_GRACE_S else None


def _summary(node: str, category: str, time: Any, ev: Case, victims: list[str]) -> str:
    """One sentence for a ticket: who, what, when, and who suffered."""
    when = (
        f" at {pd.Timestamp(time).strftime('%Y-%m-%d %H:%M:%S')} UTC"
        if time is not None and not pd.isna(time)
        else ""
    )
    tail = f"; affected after it: {_names(victims)}" if victims else ""
    what = _what_happened(node, category, ev)
    who = f"{node} ({task_name(node)})" if task_name(node) else node
    return f"{who} {what}{when} [{category}]{tail}."


def _statuses(root: str | None, ev: Case, root_time: Any) -> dict[str, tuple[str, float | None]]:
    """Status and lag (seconds behind the root cause) per node."""
    out: dict[str, tuple[str, float | None]] = {}
    blamers = (
        set(_values(ev.blames.loc[(ev.blames["blamed"] == root) & ~ev.blames["self"], "victim"]))
        if root and not ev.blames.empty
        else set()
    )
    erring = ev.first_times("errors")
    for node, f in ev.facts.items():
        if node == root:
            out[node] = ("failed", None)
        elif f.missing:
            out[node] = ("missing", None)
        elif root and (node in erring or node in blamers or node in ev.blocked):
            first = _corrected(erring, node, ev.clock)
            if first is None and node in ev.blocked and ev.findings is not None:
                first = ev.clock.correct(
                    node, _utc(ev.findings.loc[[ev.blocked[node]], "ts"]).iloc[0]
                )
            if first is None and not ev.blames.empty:
                first = _corrected(ev.first_times("blames"), node, ev.clock)
            lag = (
                _seconds(first - root_time) if first is not None and root_time is not None else None
            )
            out[node] = ("victim", round(lag, 3) if lag is not None else None)
        elif node in ev.silent:
            out[node] = ("silent", None)
        else:
            out[node] = ("ok", None)
    return out


def _node_reports(ev: Case, statuses: dict[str, tuple[str, float | None]]) -> list[NodeReport]:
    reports = []
    blamed_by = defaultdict(set)
    if not ev.blames.empty:
        for own, blamed, victim in zip(
            *(_values(ev.blames[c]) for c in ("self", "blamed", "victim")), strict=True
        ):
            if not own:
                blamed_by[blamed].add(victim)
    first_of: dict[Any, dict] = {}
    if not ev.errors.empty:
        firsts = ev.first_errors[["node", "ts", "message", "category"]]
        for row in _records(firsts.assign(ts=_utc(firsts["ts"]).array)):
            first_of.setdefault(row.node, row._asdict())
    for node in sorted(ev.facts, key=_node_order):
        f = ev.facts[node]
        first = first_of.get(node)
        status, lag = statuses.get(node, ("ok", None))
        reports.append(
            NodeReport(
                node=node,
                task=task_name(node),
                files=f.files,
                lines=f.lines,
                status=status,
                first_error_time=first["ts"] if first is not None else None,
                first_error=_clip(first["message"]) if first is not None else None,
                first_error_category=first["category"] if first is not None else None,
                first_time=f.first_time,
                last_time=f.last_time,
                ending=f.ending,
                exit_info=f.exit_info,
                versions=dict(f.versions),
                cluster=f.cluster,
                address=f.address,
                clock_offset_s=ev.clock.offsets.get(node),
                zone_offset_s=ev.zones.offsets.get(node),
                lag_s=lag,
                blamed_by=sorted(blamed_by.get(node, ())),
            )
        )
    return reports


def _healthy(ev: Case, notes: list[str]) -> RootCause:
    warn = ""
    if ev.consistency.messages:
        # a skew that did not break this run may break the next: always said, first thing
        warn = "; but " + ev.consistency.messages[0].rstrip(".")
        if len(ev.consistency.messages) > 1:
            warn += f" (and {len(ev.consistency.messages) - 1} more consistency note(s))"
    missing = sorted(n for n, f in ev.facts.items() if f.missing)
    ambiguity = None
    if missing:
        ambiguity = f"No log for {_names(missing)}: a failure there would not show."
    if ev.never_trained():
        # no failure line names a node, but a job whose every log stops at start-up did not run
        notes.append(
            "No error-level finding and no node to blame, but no task got past start-up: no "
            "step, no checkpoint, no goodbye in any log."
        )
        return RootCause(
            node=None,
            task=None,
            category="none",
            confidence=0.2,
            time=None,
            summary=(
                "No failure line, but the job never got going: every task's log stops at "
                f"start-up, with no step and no goodbye{warn}."
            ),
            ambiguity=(
                (ambiguity + " " if ambiguity else "")
                + "The job was stopped while starting (a deadline, a person, a deleted job) "
                "and no line says why or which task it waited for: the scheduler's events "
                "(kubectl describe, sacct) or the tasks' exit codes would tell."
            ),
        )
    if _stopped_unfinished(ev):
        notes.append(
            "No error-level finding and no node to blame, but no task said its training "
            "finished and logs stop mid-run: the job was ended while it ran."
        )
        return RootCause(
            node=None,
            task=None,
            category="none",
            confidence=0.3,
            time=None,
            summary=(
                "No failure line, but the job did not finish: no task said its training "
                f"finished and the logs stop mid-run{warn}."
            ),
            ambiguity=(
                (ambiguity + " " if ambiguity else "")
                + "Something ended the job while it ran (a time limit, a person, a launcher "
                "stopping every task once one exits) and no line here says what or why: a "
                "blocked step, a frozen task or a kill that left no line look alike in these "
                "logs; the scheduler's or launcher's own record (sacct, kubectl describe, GNU "
                "parallel's --joblog, the tasks' exit codes) would tell."
            ),
        )
    notes.append("No error-level finding and no silent death: the run looks healthy.")
    what = "no node logged an error and none stopped early"
    if ev.noise:
        what = (
            f"the {ev.noise} error line(s) logged after training finished only say that a peer "
            "had already left (shutdown noise)"
        )
    return RootCause(
        node=None,
        task=None,
        category="none",
        confidence=0.6 if ambiguity else 0.9,
        time=None,
        summary=f"Nothing failed: {what}{warn}.",
        ambiguity=ambiguity,
    )


def _stopped_unfinished(ev: Case) -> bool:
    """Did the job stop while it ran: no task said its training finished, not every trainer
    ended well, and a task's log stops mid-run or killed?"""
    if ev.phases is None or ev.phases.end is not None or ev.work_done() is not None:
        return False
    logs = [f for n, f in ev.facts.items() if n not in ev.outside and not f.missing]
    # (a job's logs, not one paste: a pasted tail stops mid-run by being a tail)
    return len(logs) >= 2 and any(f.ending in ("mid-run", "killed") for f in logs)


def _ambiguity(
    cands: list[Candidate], ev: Case, root: str, clock_dependent: str | None
) -> str | None:
    parts = []
    if len(cands) > 1 and cands[0].score - cands[1].score < 2:
        parts.append(
            f"{cands[1].node} is almost as likely ({cands[1].score:g} vs {cands[0].score:g} points: "
            + "; ".join(cands[1].reasons)
            + ")"
        )
    f = ev.facts.get(root)
    if f is not None and f.missing:
        parts.append(f"{root} left no log, so what happened there is inferred from its peers")
    if clock_dependent:
        parts.append(clock_dependent)
    return "; ".join(parts) or None


def _clock_dependence(ev: Case, cands: list[Candidate]) -> str | None:
    """Would the verdict differ without the clock correction? A sentence if so."""
    if not ev.clock.applied or not cands:
        return None
    raw_clock = ClockEstimate(offsets=dict(ev.clock.offsets))
    raw = replace(
        ev,
        clock=raw_clock,
        silent=detect_silence(
            ev.facts,
            ev.symptom_times(),
            ev.blames,
            raw_clock,
            ev.phases.serving(),
            ev.outside,
            ev.stopped,
        ),
    )
    raw_cands = _rank(raw)
    if raw_cands and raw_cands[0].node != cands[0].node:
        return (
            f"without clock correction the verdict would be {raw_cands[0].node}; "
            f"it rests on the estimated offsets ({_offset_text(ev.clock)})"
        )
    return None


def _verdict(ev: Case, cands: list[Candidate], rules: Any, notes: list[str]) -> RootCause:
    """Step 7: the root cause from the best candidate, with evidence and confidence."""
    best = cands[0]
    clock_dependent = _clock_dependence(ev, cands)
    if clock_dependent:
        notes.append(clock_dependent[0].upper() + clock_dependent[1:] + ".")
    elif ev.clock.applied:
        notes.append("The verdict is the same with and without the clock correction.")
    for c in cands[:4]:
        notes.append(f"Candidate {c.node}: {c.score:g} points — " + "; ".join(c.reasons) + ".")
    category, pattern_id = _root_category(best.node, best, ev)
    statuses = _statuses(best.node, ev, best.time)
    victims = sorted(
        (n for n, (s, _) in statuses.items() if s == "victim" and n not in ev.outside),
        key=lambda n: statuses[n][1] if statuses[n][1] is not None else float("inf"),
    )
    evidence = _root_evidence(best.node, best, category, ev, rules)
    evidence += _shared_write_evidence(best, category, ev)
    evidence += _missing_evidence(best.node, ev)
    evidence += _blame_evidence(best.node, ev, rules, ev.findings)
    evidence += _blocked_evidence(ev, rules)
    evidence += _victim_evidence(best.node, ev, {e.node for e in evidence})
    confidence = _confidence(cands)
    if ev.facts.get(best.node) is not None and ev.facts[best.node].missing:
        confidence *= 0.85
    if clock_dependent:
        confidence *= 0.8
    ambiguity = _ambiguity(cands, ev, best.node, clock_dependent)
    if pattern_id in BARE_KILL:
        # the line says SIGKILL came, not who sent it: the category rests on what usually does
        confidence *= 0.8
        said = (
            f"{best.node}'s 'Killed' names no sender: usually the kernel's OOM killer (dmesg "
            "says so), but a kill -9 or a launcher's SIGKILL reads the same."
        )
        ambiguity = f"{ambiguity} {said}" if ambiguity else said
    notes.append(
        f"Verdict: {best.node} is the first failing node; what happened there: {category}"
        + (f" (rule {pattern_id})." if pattern_id else ".")
    )
    rule = _rule(rules, pattern_id)
    return RootCause(
        node=best.node,
        task=task_name(best.node),
        category=category,
        confidence=round(min(max(confidence, 0.05), 0.99), 3),
        time=best.time,
        summary=_summary(best.node, category, best.time, ev, victims),
        evidence=evidence[:MAX_EVIDENCE],
        pattern_id=pattern_id,
        remediation=(getattr(rule, "remediation", "") or "").strip()
        or DEFAULT_REMEDIATION.get(category),
        ambiguity=ambiguity,
    )


def _shared_write_evidence(c: Candidate, category: str, ev: Case) -> list[Evidence]:
    """The write lines of the tasks that wrote the file the root's error names, when that made
    the verdict a concurrent write (:mod:`.shared_files`)."""
    shared = shared_write(c.node, c, ev) if category == "concurrent_write" else None
    timeline = ev._memo.get("timeline")
    if shared is None or timeline is None:
        return []
    out = []
    for writer in shared.writers:
        row = timeline.loc[shared.rows[writer]]
        line_no = row.get("line_no")
        out.append(
            Evidence(
                node=writer,
                time=ev.clock.correct(writer, _utc(pd.Series([row["ts"]])).iloc[0]),
                file=row.get("file"),
                line_no=int(line_no) if line_no is not None and not pd.isna(line_no) else None,
                text=str(row.get("message") or "")[:300],
                why=(
                    f"{writer} wrote the file the error names; {len(shared.writers)} tasks wrote "
                    "it at about the same time"
                ),
            )
        )
    return out


def _zone_notes(zones: ZoneFix) -> list[str]:
    return [
        f"Zones: {node}'s zone-less timestamps sit {_human_duration(off)} "
        f"{'ahead of' if off > 0 else 'behind'} its own epoch/zoned ones "
        f"({zones.pairs[node]} neighbouring line pairs); they were aligned (is --tz right?)."
        for node, off in sorted(zones.offsets.items())
    ]


def _anchor_clock_notes(anchored: AnchorClock) -> list[str]:
    return [
        f"Clocks: {node}'s clock runs {_human_duration(abs(off))} "
        f"{'ahead of' if off > 0 else 'behind'} its peers': {anchored.events[node]} event(s) "
        "it logged at the same moment as a peer (steps they ended together, its joining the "
        "coordination service) carry times that much apart; its times were moved back in line "
        "before anything was compared."
        for node, off in sorted(anchored.offsets.items())
    ]


def _offset_text(clock: ClockEstimate) -> str:
    return ", ".join(f"{n} {v:+.1f} s" for n, v in sorted(clock.applied.items())) or "none"


def _note_inputs(ev: Case, notes: list[str]) -> None:
    """Plain sentences for what each step found."""
    present = [n for n, f in ev.facts.items() if not f.missing]
    missing = [n for n, f in ev.facts.items() if f.missing]
    notes.append(
        f"Read {len(present)} node log(s)"
        + (f"; {_names(missing)} named in the cluster spec left no log" if missing else "")
        + f". {len(ev.errors)} error-level finding(s)."
    )
    for n in sorted(present, key=_node_order):
        f = ev.facts[n]
        notes.append(
            f"{n}'s log ends {ENDING_TEXT.get(f.ending, f.ending)}"
            + (f" ({f.exit_info})" if f.exit_info else "")
            + "."
        )
    if not ev.blames.empty:
        pairs = [(b, sorted(v)) for b, (_, v) in _blame_groups(ev.blames[~ev.blames["self"]])]
        for blamed, victims in pairs:
            notes.append(f"Blame: {_names(victims)} name(s) {blamed} in their errors.")
    notes.extend(ev.consistency.messages)
    for node, offset in ev.clock.applied.items():
        notes.append(
            f"Clock: {node}'s timestamps run {_human_duration(offset)} "
            f"{'ahead of' if offset > 0 else 'behind'} its peers' ({ev.clock.reasons[node]}); corrected."
        )
    if not ev.clock.applied and not ev.clock.by_anchors and len(ev.clock.offsets) >= 3:
        notes.append(
            f"Clock: no node's start-up or first errors stand out from its peers' by "
            f"{SKEW_MIN_S:.0f} s or more; times are compared as logged."
        )
    for node, after in ev.silent.items():
        notes.append(
            f"Silence: {node}'s log stops mid-run {_human_duration(after)} before its peers'."
        )


def _finish(root_cause: RootCause, ev: Case, statuses: dict, notes: list[str]) -> Diagnosis:
    return Diagnosis(
        root_cause=root_cause,
        nodes=_node_reports(ev, statuses),
        consistency=list(ev.consistency.messages),
        clock_offsets=dict(ev.clock.offsets),
        notes=notes,
    )
