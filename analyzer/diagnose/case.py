"""The bundle every signal's result goes into, and the suspects it yields."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from analyzer.diagnose.clocks import ClockEstimate
from analyzer.diagnose.common import (
    SYMPTOM_CATEGORIES,
    _utc,
    _values,
)
from analyzer.diagnose.consistency import Consistency
from analyzer.diagnose.facts import Facts, program_node
from analyzer.diagnose.outside import STOPPED_TOGETHER_S, work_done
from analyzer.diagnose.phases import Phases
from analyzer.diagnose.zones import ZoneFix

#: A task's preemption notice this long after a peer's error first named it is the teardown of
#: a job already lost, not why it was lost
NAMED_BEFORE_NOTICE = pd.Timedelta(seconds=1)


@dataclass
class Candidate:
    """One suspect node, its points and the reasons for them."""

    node: str
    score: float = 0.0
    reasons: list[str] = field(default_factory=list)
    blamers: list[str] = field(default_factory=list)
    intrinsic: dict | pd.Series | None = None  #: its first intrinsic finding (column → value)
    time: Any = None  #: its failure time (corrected clock)

    def add(self, points: float, reason: str) -> None:
        self.score += points
        self.reasons.append(f"{reason} ({points:+g})")


def _intrinsic_findings(errors: pd.DataFrame, blames: pd.DataFrame) -> pd.DataFrame:
    """Errors that are a node's own: blamed on itself, or not a symptom and blaming no peer."""
    if errors.empty:
        return errors
    peer_rows = set(blames.loc[~blames["self"], "row"]) if not blames.empty else set()
    self_rows = set(blames.loc[blames["self"], "row"]) if not blames.empty else set()
    own = errors.index.isin(list(self_rows)) | (
        ~errors["category"].isin(SYMPTOM_CATEGORIES) & ~errors.index.isin(list(peer_rows))
    )
    return _specific_first(errors[own])


def _specific_first(own: pd.DataFrame) -> pd.DataFrame:
    """``own`` less the general findings (``fallback.*``: a bare exception header such as
    ``TypeError: in user code:``) that a specific finding of the same node at the same time
    explains: the traceback's own lines carry its time, and its specific line says what the
    header only announces."""
    if own.empty or "pattern_id" not in own.columns:
        return own
    general = own["pattern_id"].astype(str).str.startswith("fallback.").to_numpy(dtype=bool)
    if not general.any() or general.all():
        return own
    ts = _utc(own["ts"]).astype(str).tolist()  # (NaT too: lines with no time at all)
    key = [f"{n}|{t}" for n, t in zip(_values(own["node"]), ts, strict=True)]
    specific = {k for k, g in zip(key, general, strict=True) if not g}
    explained = np.array([g and k in specific for k, g in zip(key, general, strict=True)])
    return own[~explained]


@dataclass
class Case:
    """Everything the scoring and the verdict look at (one bundle, to keep signatures short)."""

    facts: dict[str, Facts]
    errors: pd.DataFrame
    blames: pd.DataFrame
    intrinsic: pd.DataFrame
    consistency: Consistency
    clock: ClockEstimate
    silent: dict[str, float]
    findings: pd.DataFrame | None = None  #: all findings (for the evidence lines)
    blocked: dict[str, Any] = field(default_factory=dict)  #: node → its last start-up wait row
    zones: ZoneFix = field(default_factory=lambda: ZoneFix())
    phases: Phases = field(default_factory=lambda: Phases())
    noise: int = 0  #: error lines set aside as shutdown noise
    outside: set[str] = field(default_factory=set)  #: job-level logs: no task (outside.py)
    stopped: set[str] = field(default_factory=set)  #: tasks stopped together from outside
    #: tasks that a launcher's or scheduler's stop line names (``sending SIGTERM to ps:0``)
    told_to_stop: set[str] = field(default_factory=set)
    #: tasks that outlived that SIGTERM and had to be killed (``still running after 5 s``)
    unresponsive: set[str] = field(default_factory=set)
    #: the lines in which an outside party ended the job (text → its timeline row)
    end_lines: dict[str, dict] = field(default_factory=dict)
    _memo: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def failing(self) -> bool:
        """Any sign of failure at all: an error, a silent death, a start-up that never ended."""
        return (
            not self.errors.empty
            or bool(self.silent)
            or bool(self.blocked)
            or bool(self.waited_for())
            or bool(self.unexplained_exits())
            or self.ended_from_outside()
            or bool(self.notices())
            or bool(self.stopped_short())
            or bool(self.gone_before_stop())
            or bool(self.cut_off())
            or bool(self.never_finished())
            or bool(self.restarted())
            or self.never_trained()
        )

    def stopped_short(self) -> dict[str, tuple[float, float]]:
        """See :func:`.endings.stopped_short`."""
        from analyzer.diagnose import endings

        return endings.stopped_short(self)

    def cut_off(self) -> set[str]:
        """See :func:`.endings.cut_off`."""
        from analyzer.diagnose import endings

        return endings.cut_off(self)

    def never_finished(self) -> set[str]:
        """See :func:`.endings.never_finished`."""
        from analyzer.diagnose import endings

        return endings.never_finished(self)

    def restarted(self) -> dict[str, dict]:
        """See :func:`.endings.restarted`."""
        got = self._memo.get("restarted")
        if got is None:
            from analyzer.diagnose import endings

            got = self._memo["restarted"] = endings.restarted(self)
        return got

    def never_trained(self) -> bool:
        """See :func:`.endings.never_trained`."""
        from analyzer.diagnose import endings

        return endings.never_trained(self)

    def gone_before_stop(self) -> set[str]:
        """See :func:`.endings.gone_before_stop`."""
        from analyzer.diagnose import endings

        return endings.gone_before_stop(self)

    def stuck_waited_on(self) -> str | None:
        """See :func:`.endings.stuck_waited_on`."""
        from analyzer.diagnose import endings

        return endings.stuck_waited_on(self)

    def woken_waited_on(self) -> str | None:
        """See :func:`.endings.woken_waited_on`."""
        from analyzer.diagnose import endings

        got = self._memo.get("woken")
        if got is None:
            got = self._memo["woken"] = (endings.woken_waited_on(self),)
        return got[0]

    def notices(self) -> dict[str, dict]:
        """Per node, its first preemption notice (a warning too: TF's ``SIGTERM caught``), when
        the node was not stopped together with the whole job: the scheduler took that task."""
        got = self._memo.get("notices")
        if got is None:
            got = {}
            f = self.findings
            if f is not None and not f.empty:
                own = (
                    (f["blames"] == "self").fillna(False).to_numpy(dtype=bool)
                    if "blames" in f
                    else np.zeros(len(f), dtype=bool)
                )
                keep = (
                    own  # a notice about this task itself, not a peer's handler reacting
                    & (f["category"] == "preemption").to_numpy(dtype=bool)
                    & ~f["benign"].fillna(False).astype(bool).to_numpy()
                    & f["severity"].isin(("warning", "error", "fatal")).to_numpy()
                )
                outside = self._named_from_outside()
                rows = pd.concat([f[keep], outside]) if len(outside) else f[keep]
                end = self.phases.end if self.phases is not None else None
                if end is None:
                    end = self._work_done()
                if end is not None and len(rows):
                    # a server (a ps, a worker that only serves) stopped after the job's
                    # training finished is the job's teardown, not a task taken away
                    serving = self.phases.serving()
                    late = (_utc(rows["ts"]) > end).fillna(False).to_numpy(dtype=bool)
                    server = rows["node"].astype(str).isin(serving).to_numpy(dtype=bool)
                    rows = rows[~(late & server)]
                named = self._first_named()
                for label, node in zip(rows.index.tolist(), _values(rows["node"]), strict=True):
                    node = str(node)
                    if node in got or node in self.stopped or node in self.outside:
                        continue
                    at = _utc(pd.Series([rows.loc[label, "ts"]])).iloc[0]
                    if self._stopped_with_others(node, at):
                        # a launcher's stop lines sent the signal to it and to others before
                        # it caught one: the job's end (honcho stopping the rest once one
                        # process exited), not this task taken away
                        continue
                    first = named.get(node)
                    if first is not None and pd.notna(at) and first < at - NAMED_BEFORE_NOTICE:
                        # its peers were failing on it before the signal came: the launcher's
                        # teardown of a job already lost (mpirun's SIGTERM to every rank after
                        # one failed), not the scheduler taking the task away
                        continue
                    got[node] = rows.loc[label].to_dict()
            self._memo["notices"] = got
        return got

    def _stopped_with_others(self, node: str, at: Any) -> bool:
        """Did a launcher's stop lines send the signal to ``node`` together with other tasks
        (within ``STOPPED_TOGETHER_S``) before its notice at ``at``?"""
        stop = self._memo.get("outside_end")
        told = getattr(stop, "stop_times", {}) if stop is not None else {}
        mine = told.get(node)
        if mine is None or pd.isna(at) or at < mine - NAMED_BEFORE_NOTICE:
            return False
        return any(
            n != node and abs((t - mine).total_seconds()) <= STOPPED_TOGETHER_S
            for n, t in told.items()
        )

    def work_done(self) -> Any:
        """When the job's work was done, by its own words or every trainer's good end (see
        :func:`.outside.work_done`), or None."""
        end = self.phases.end if self.phases is not None else None
        return end if end is not None else self._work_done()

    def _work_done(self) -> Any:
        """When every task that trained had ended well, though no line said the training
        finished (:func:`.outside.work_done`), or None."""
        if "work_done" not in self._memo:
            serving = self.phases.serving() if self.phases is not None else set()
            self._memo["work_done"] = work_done(self.facts, serving, self.outside, None)
        return self._memo["work_done"]

    def all_finished_before(self, t: Any) -> bool:
        """Had every task that trained (not one that only serves, not a job-level log) said
        its training finished before ``t``? A stop from outside after that is the job's
        teardown (a launcher stopping what is left once one process exits)."""
        if t is None or pd.isna(t) or self.phases is None:
            return False
        serving = self.phases.serving()
        trainers = [
            n
            for n, f in self.facts.items()
            if n not in serving and n not in self.outside and not f.missing
        ]
        done = [self.phases.finished(n) for n in trainers]
        if not trainers or any(d is None or pd.isna(d) for d in done):
            return False
        return bool((_utc(pd.Series(done)) <= t).all())

    def _named_from_outside(self) -> pd.DataFrame:
        """Preemption notices of a job-level log (a launcher's, a process supervisor's) about
        a task it names (supervisord's ``stopped: tf-worker-1``), as that task's own notices:
        the findings' rows with ``node`` the task named. A stop that is no accusation (the
        rule's severity may be ``info``): only a task stopped alone was taken away; tasks it
        stopped together were the job's end (the operator's, the supervisor's own shutdown)."""
        f = self.findings
        if f is None or f.empty or not self.outside:
            return pd.DataFrame()
        said = f[
            f["node"].astype(str).isin(self.outside).to_numpy(dtype=bool)
            & (f["category"] == "preemption").to_numpy(dtype=bool)
            & ~f["benign"].fillna(False).astype(bool).to_numpy()
        ]
        if said.empty:
            return said
        named = [_task_named(c, self.facts) for c in _values(said["captures"])]
        said = said.assign(node=named)[[n is not None for n in named]]
        if said.empty:
            return said
        first = _utc(said["ts"]).groupby(said["node"].to_numpy()).min().sort_values()
        gaps = first.diff().dt.total_seconds().to_numpy()
        near = np.r_[gaps[1:], np.inf] <= STOPPED_TOGETHER_S
        near |= np.r_[np.inf, gaps[1:]] <= STOPPED_TOGETHER_S
        return said[~said["node"].isin(first.index[near])]

    def _first_named(self) -> dict[str, pd.Timestamp]:
        """Per node, the first time a peer's error named it as failing (resolved blames, not its
        own; a peer waiting for it at start-up says it was not there yet, not that it failed)."""
        b = self.blames
        if b is None or b.empty:
            return {}
        peers = b[~b["self"].astype(bool) & (b["category"] != "session_blocked")]
        if peers.empty:
            return {}
        ts = _utc(peers["ts"])
        return {
            str(n): t for n, t in ts.groupby(peers["blamed"].astype(str).to_numpy()).min().items()
        }

    def ended_from_outside(self) -> bool:
        """Was the job stopped from outside (its tasks killed together, or a job-level log that
        ends with the kill) before any node's training finished?"""
        if self.phases.end is not None or self._work_done() is not None:
            return False  # (a stop after every trainer ended well is the job's teardown)
        return bool(self.stopped) or any(
            self.facts[n].ending == "killed" for n in self.outside if n in self.facts
        )

    def unexplained_exits(self) -> set[str]:
        """Nodes whose log ends with a traceback that no rule recognised (no error finding)."""
        erring = self._memo.get("erring")
        if erring is None:
            erring = self._memo["erring"] = set(_values(self.errors["node"]))
        return {n for n, f in self.facts.items() if f.uncaught and n not in erring}

    @property
    def symptoms(self) -> pd.DataFrame:
        """Errors that are not a node's own: reactions to another node's failure."""
        got = self._memo.get("symptoms")
        if got is None:
            got = self._memo["symptoms"] = self.errors[
                ~self.errors.index.isin(self.intrinsic.index)
            ]
        return got

    def first_times(self, frame: str) -> dict[str, Any]:
        """Per node, the earliest time (UTC, uncorrected) of its ``errors`` or of the
        ``blames`` it logged: :func:`_first_time` for every node at once (kept)."""
        got = self._memo.get(frame)
        if got is None:
            rows = self.errors if frame == "errors" else self.blames
            got = self._memo[frame] = _first_times(rows, "node" if frame == "errors" else "victim")
        return got

    def symptom_times(self) -> pd.DataFrame:
        """:attr:`symptoms`' ``node`` and ``ts`` (all that silence detection reads; kept)."""
        got = self._memo.get("symptom_times")
        if got is None:
            own = self.errors.index.isin(self.intrinsic.index)
            got = self._memo["symptom_times"] = self.errors[["node", "ts"]][~own]
        return got

    @property
    def first_errors(self) -> pd.DataFrame:
        """Each node's first error: ``errors.sort_values("ts").drop_duplicates("node")`` (kept;
        the order found on the two columns it depends on)."""
        got = self._memo.get("first_errors")
        if got is None:
            first = self.errors[["ts", "node"]].sort_values("ts").drop_duplicates("node").index
            got = self._memo["first_errors"] = self.errors.loc[first]
        return got

    def intrinsic_nodes(self) -> set[str]:
        """Nodes with an error of their own."""
        return set(_values(self.intrinsic["node"])) if not self.intrinsic.empty else set()

    def waited_for(self) -> set[str]:
        """Nodes that peers waited for at start-up, by name (``CreateSession still waiting``)."""
        if self.blames.empty:
            return set()
        waits = self.blames[~self.blames["self"] & (self.blames["category"] == "session_blocked")]
        return set(waits["blamed"])


def _first_times(frame: pd.DataFrame, key: str) -> dict[str, Any]:
    """Per value of ``frame[key]``, its rows' earliest time (UTC, uncorrected): one group-by."""
    if frame.empty:
        return {}
    return _utc(frame["ts"]).groupby(frame[key].to_numpy()).min().to_dict()


def _corrected(times: dict[str, Any], node: str, clock: ClockEstimate) -> Any:
    """``_first_time`` from :func:`_first_times`: the node's corrected time, None if it has none."""
    return clock.correct(node, times[node]) if node in times else None


def _task_named(captures: Any, facts: dict[str, Facts]) -> str | None:
    """The known task a job-level finding's captures name: a launcher's program name
    (``peer_program``, read as a log's file name is) or a task id (``peer_node``)."""
    if isinstance(captures, str):
        try:
            captures = json.loads(captures)
        except ValueError:
            return None
    if not isinstance(captures, dict):
        return None
    program, node = captures.get("peer_program"), captures.get("peer_node")
    found = program_node(str(program), facts) if program else node
    return found if found in facts else None
