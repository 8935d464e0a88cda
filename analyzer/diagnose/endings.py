"""How a task's log ended when it logged no error: the signals that tell a death, a stall or a
planned end apart from the log's last lines and its peers' (one function a signal).

- :func:`stopped_short`: the log stops short of the step count it runs to, in a job nobody
  finished;
- :func:`cut_off`: it stops mid-training (or, the only one so, at any phase) with no goodbye
  while its peers' logs end cleanly and no node finished; or, the only one so, after its own
  training finished;
- :func:`never_finished`: it stops mid-run while its peers said their training finished
  (asynchronous training goes on without it);
- :func:`gone_before_stop`: the stop that ended the job named the other tasks, not it;
- :func:`restarted`: its process started again after a first run whose log just stops (a
  supervisor's, kubelet's or a launcher's restart);
- :func:`stuck_waited_on`: the one task that outlived that stop's SIGTERM while its peers' first
  errors are timeouts;
- :func:`woken_waited_on`: the one task that spoke last, only of its peers being gone, after
  their first errors were timeouts (a stopped process a launcher's abort woke);
- :func:`never_trained`: no task's log shows a step or a goodbye: the job never got going.

:class:`.Case` exposes each as a method; scoring, the verdict's wording and the evidence read
them there.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pandas as pd

from analyzer.diagnose.common import (
    HEARTBEAT_RPC_RE,
    NOT_TRAINERS,
    TIMED_OUT_RE,
    _utc,
    error_texts,
)

if TYPE_CHECKING:
    from analyzer.diagnose.case import Case

#: a node's errors this close to its first one are one failure (a step's aborts and its cause)
STEP_BURST_S = 2.0


def stopped_short(ev: Case) -> dict[str, tuple[float, float]]:
    """Nodes whose log ends mid-run, its last step short of the count it runs to, in a job
    no node finished: (step, count). A healthy run reaches its count; one that stops short
    without a goodbye or an error died there. When the job was stopped from outside, only
    a task that stop did not reach counts (the stop's line names the tasks it reached:
    one it no longer had to stop had gone before); without such names, none does."""
    if ev.phases is None or ev.phases.end is not None:
        return {}
    if ev.ended_from_outside() and not ev.told_to_stop:
        return {}
    return {
        n: got
        for n, got in ev.phases.short.items()
        if (f := ev.facts.get(n)) is not None
        and f.ending == "mid-run"
        and n not in ev.stopped
        and n not in ev.outside
        and n not in ev.told_to_stop
    }


#: TF's PreemptionCheckpointHandler exiting once its checkpoint is saved (failure_handling.py):
#: every worker of the job does so when one of them is preempted
_HANDLER_EXIT = re.compile(r"PreemptionCheckpointHandler: checkpoint saved\. Exiting")


def cut_off(ev: Case) -> set[str]:
    """Nodes whose log ends mid-run without a goodbye, in a job nobody stopped from outside,
    while a peer's log ends cleanly: the peers said goodbye, it did not. In a job no node
    finished, a node in the training phase died while it trained; a node at an earlier phase
    counts when it is the only log that ends so and every other log ends cleanly (its peers
    were told to stop after it went: a client of servers that only serve, killed at start-up).
    In a job that finished, a trainer (not a ps or an evaluator) that said its own training
    finished counts when it is that only log: it died saving or shutting down. (Not by time:
    a server's goodbye often carries no time of its own.)"""
    if ev.phases is None or ev.ended_from_outside():
        return set()
    if any(
        _HANDLER_EXIT.search(str((f.last_line or {}).get("message") or ""))
        for f in ev.facts.values()
    ):
        return set()  # (a preemption ended the job: the others' goodbyes are its doing)
    if not any(f.ending == "clean" for f in ev.facts.values()):
        return _cut_after_finish(ev)
    cut = {
        n
        for n, f in ev.facts.items()
        if f.ending == "mid-run"
        and n not in ev.stopped
        and n not in ev.outside
        and n not in ev.told_to_stop
    }
    if ev.phases.end is None:
        training = {n for n in cut if ev.phases.furthest(n) == "training"}
        if training:
            return training
    others = [f for n, f in ev.facts.items() if n not in cut]
    if len(cut) != 1 or not others or not all(f.ending == "clean" for f in others):
        return set()  # (a task with no log here has no clean end: it may be the cause)
    (node,) = cut
    if ev.phases.end is None:
        return cut
    done = ev.phases.last.get(node, {}).get("finished")
    last = ev.facts[node].last_time
    if (
        node.partition(":")[0] not in NOT_TRAINERS
        and done is not None
        and last is not None
        and bool((t := _utc(pd.Series([done, last]))).iloc[0] < t.iloc[1])  # it went on
    ):
        return cut
    return set()


def _cut_after_finish(ev: Case) -> set[str]:
    """In a finished job where no log ends cleanly: the one trainer that said its training
    finished and logged on, with no goodbye, while every other log is a server's (a ps, or a
    worker that only serves: those end with the job when it is torn down, e.g. pods deleted
    once the chief exits). A trainer that gets that far says goodbye when it exits."""
    if ev.phases.end is None:
        return set()
    serving = ev.phases.serving()
    trainers = {
        n
        for n, f in ev.facts.items()
        if not f.missing
        and n not in ev.outside
        and n.partition(":")[0] not in NOT_TRAINERS
        and n not in serving
    }
    servers = {
        n
        for n, f in ev.facts.items()
        if not f.missing and n not in ev.outside and n not in trainers
    }
    if (
        len(trainers) != 1
        or not servers
        or any(n not in serving for n in servers if n[:3] != "ps:")
    ):
        return set()
    (node,) = trainers
    f = ev.facts[node]
    done = ev.phases.last.get(node, {}).get("finished")
    if f.ending != "mid-run" or done is None or f.last_time is None or node in ev.told_to_stop:
        return set()
    t = _utc(pd.Series([done, f.last_time]))
    return {node} if bool(t.iloc[0] < t.iloc[1]) else set()


def never_finished(ev: Case) -> set[str]:
    """Tasks (not a ps, nor a task that only serves) whose log ends mid-run with no goodbye in a job
    where other tasks said their training finished: they never reached the end their peers
    reached (asynchronous training goes on without a dead worker, or without its chief; the
    training goes on without its evaluator). An evaluator counts when its log ended before
    the training did (one that waits on for checkpoints is stopped with the job). Nodes
    stopped from outside are not counted."""
    if ev.phases is None or ev.phases.end is None:
        return set()
    # (tasks only: a log piece whose task is unknown says nothing of the task's peers)
    finished = {
        n for n in ev.facts if ev.phases.finished(n) is not None and n.partition(":")[2].isdigit()
    }
    return {
        n
        for n, f in ev.facts.items()
        if finished
        and n not in finished
        and not f.missing
        and f.ending in ("mid-run", "killed")
        and (_trains(n, ev) or _left_before_the_end(n, f, ev))
        and n not in ev.outside
        and n not in ev.stopped
        and n not in ev.told_to_stop
    }


#: phases a run that got going shows on at least one task
_GOT_GOING = ("training", "checkpoint", "finished")


def never_trained(ev: Case) -> bool:
    """Two or more tasks logged, and no task's log shows a step, a checkpoint or a finish, nor
    ends with a goodbye: the job never got going. A healthy run trains on some task, and a run
    whose logs all stop at start-up was ended from outside (a deadline, a person, a deleted
    job) while it waited; nothing in the lines need say so (Kubernetes writes nothing of a
    deleted pod into its log)."""
    if ev.phases is None:
        return False
    tasks = [
        n
        for n, f in ev.facts.items()
        if not f.missing and n not in ev.outside and n.partition(":")[2].isdigit()
    ]
    if len(tasks) < 2 or any(ev.facts[n].ending == "clean" for n in tasks):
        return False
    return not any(p in ev.phases.first.get(n, {}) for n in tasks for p in _GOT_GOING)


def _trains(node: str, ev: Case) -> bool:
    """Is ``node`` a trainer by its job name (not a ps, not an evaluator) whose log went past
    serving? A worker that only serves (ParameterServerStrategy's workers run the closures a
    coordinator sends them and log no step of their own: their log shows a server start and
    nothing more) ends its log when its pod or process is stopped after the training, as a
    ps does."""
    if node.partition(":")[0] in NOT_TRAINERS:
        return False
    return node not in ev.phases.serving()


def _left_before_the_end(node: str, f: Any, ev: Case) -> bool:
    """A task that only serves or evaluates whose log stopped before the training ended (a
    ps never counts)."""
    if node.partition(":")[0] == "ps" or f.last_time is None or pd.isna(f.last_time):
        return False
    return bool(f.last_time < ev.phases.end)


def gone_before_stop(ev: Case) -> set[str]:
    """Tasks that a launcher's or scheduler's stop line did not name while it named others,
    whose log ends with no goodbye and no finished training: the stop no longer had to
    reach them, so they had gone before it (died), whatever phase they were in."""
    if not ev.told_to_stop:
        return set()
    return {
        n
        for n, f in ev.facts.items()
        if n not in ev.told_to_stop
        and n not in ev.unresponsive  # (alive at the stop: it had to be killed)
        and n not in ev.outside
        and n not in ev.stopped
        and not f.missing
        and f.ending in ("mid-run", "killed")
        and ev.phases.finished(n) is None
    }


def stuck_waited_on(ev: Case) -> str | None:
    """The one task that did not exit on the SIGTERM that ended the job (a stopped or stuck
    process: it had to be killed) while the others did, with no error of its own, when the
    other tasks' first errors are timeouts: they waited on it until their deadlines."""
    if len(ev.unresponsive) != 1 or not ev.told_to_stop - ev.unresponsive:
        return None
    node = next(iter(ev.unresponsive))
    if node in ev.intrinsic_nodes() or ev.errors.empty:
        return None
    peers = ev.errors[ev.errors["node"] != node]
    if peers.empty:
        return None
    burst = first_bursts(peers)
    share = timed_out(burst).groupby(burst["node"]).any().mean()
    return node if share > 0.5 else None


def first_bursts(errors: pd.DataFrame) -> pd.DataFrame:
    """Each node's first burst of errors: those within ``STEP_BURST_S`` of its first (a step
    that timed out also aborts its executors a moment before the deadline's own error)."""
    times = _utc(errors["ts"])
    first = times.groupby(errors["node"].astype(str)).transform("min")
    return errors[(times - first <= pd.Timedelta(seconds=STEP_BURST_S)).to_numpy()]


def timed_out(errors: pd.DataFrame) -> pd.Series:
    """Per error: is it a timeout (a deadline's category, or its text says it timed out)?"""
    return (errors["category"] == "deadline_exceeded") | error_texts(errors).str.contains(
        TIMED_OUT_RE
    )


def waited_on_by_heartbeats(node: str, ev: Case) -> bool:
    """Did ``node``'s peers time out on it only in their heartbeats to the coordination
    service it hosts (the chief, else worker 0)? That is the service's liveness check giving
    up on it, not a deadline of the job's own operations."""
    leader = next((n for n in ("chief:0", "master:0", "worker:0") if n in ev.facts), None)
    if node != leader or ev.errors.empty:
        return False
    tasks = ev.errors[~ev.errors["node"].astype(str).isin(ev.outside | {node})]
    if tasks.empty:
        return False
    burst = first_bursts(tasks)
    texts = error_texts(burst)
    late = timed_out(burst) & ~texts.str.contains("is aborted by")
    if not late.any():
        return False
    return bool(texts[late].str.contains(HEARTBEAT_RPC_RE).all())


def woken_waited_on(ev: Case) -> str | None:
    """The one task whose first error came after every peer's, when those peers' first errors
    are timeouts and its own are only reactions to them being gone (a refused or reset
    connection: no error of its own kind) or the word that it ended: a stopped process that the
    launcher's abort woke (mpirun sends SIGCONT, then SIGTERM, to every rank when one fails) or
    killed (a failed Spark barrier stage ends its other tasks), so its log does not stop early
    and its words come last; its peers had waited on it until their deadlines, or until the
    coordination service gave up on it (a heartbeat check naming it)."""
    errors = ev.errors
    if errors.empty:
        return None
    # (a wait at start-up that ended is no failure: who failed first is told by the others)
    tasks = errors[
        ~errors["node"].astype(str).isin(ev.outside)
        & (errors["category"].astype(str) != "session_blocked")
    ]
    if tasks.empty:
        return None
    times = _utc(tasks["ts"])
    firsts = times.groupby(tasks["node"].astype(str)).min().dropna()
    if len(firsts) < 3:
        return None
    node = str(firsts.idxmax())
    others = firsts.drop(node)
    if firsts[node] <= others.max():
        return None
    # an error of its own kind is no reaction; the word that it ended (an exit, a kill, the
    # SIGTERM that woke it: a launcher's stop sends SIGCONT after it, runit's and systemd's too)
    ended = ("node_crash", "preemption")
    own_kinds = (
        set()
        if ev.intrinsic.empty
        else set(ev.intrinsic.loc[ev.intrinsic["node"].astype(str) == node, "category"].astype(str))
    )
    if own_kinds - set(ended):
        return None
    burst = first_bursts(tasks[tasks["node"].astype(str) != node])
    # they waited on it: a timeout, or the coordination service's word that it gave up on it
    waited = timed_out(burst) | _gave_up_on(node, burst, ev)
    if waited.groupby(burst["node"].astype(str)).any().mean() <= 0.5:
        return None
    own = tasks[tasks["node"].astype(str) == node]
    reacting = own["category"].isin(("connection_unavailable", "coordination_failure", *ended))
    return node if reacting.all() else None


def _gave_up_on(node: str, errors: pd.DataFrame, ev: Case) -> pd.Series:
    """Per error: is it the coordination service giving up on ``node`` (a coordination
    failure that names it: its heartbeats stopped)?"""
    named = [] if ev.blames.empty else list(ev.blames.loc[ev.blames["blamed"] == node, "row"])
    return (errors["category"] == "coordination_failure") & errors.index.isin(named)


def service_gave_up_on(node: str, ev: Case) -> bool:
    """Did most of ``node``'s peers' first bursts of errors name it in the coordination
    service's words, with no timeout among them (its heartbeats stopped; nothing of the job's
    own timed out first)?"""
    peers = ev.errors[
        (ev.errors["node"].astype(str) != node)
        & (ev.errors["category"].astype(str) != "session_blocked")
        & ~ev.errors["node"].astype(str).isin(ev.outside)
    ]
    if peers.empty:
        return False
    burst = first_bursts(peers)
    by_node = burst["node"].astype(str)
    gave_up = _gave_up_on(node, burst, ev).groupby(by_node).any()
    timeouts = timed_out(burst).groupby(by_node).any()
    return bool(gave_up.mean() > 0.5 and not timeouts.any())


def restarted(ev: Case) -> dict[str, dict]:
    """Tasks whose process started again (TensorFlow started their server a second time): the
    first run died, whatever the second did. Per task, the line where its first run ended."""
    if ev.phases is None:
        return {}
    return {
        n: line
        for n, line in ev.phases.restarts.items()
        if (f := ev.facts.get(n)) is not None and not f.missing and n not in ev.outside
    }
