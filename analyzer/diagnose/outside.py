"""The job's own end: logs that are no task's, and a stop that hit every task at once.

- **Job-level logs.** A launcher's or scheduler's own output (``launcher.log``, a batch
  script's ``slurm-42.out``, ``kubectl get events``) sits beside the tasks' logs. It says how
  the job ended, but it is no task: it is never the first failing node, and its last line does
  not make the tasks' logs "stop early".
- **A stop from outside.** When a time limit, a person or the scheduler ends the job, every
  task still alive gets the signal at once and their logs end with it within seconds of each
  other. That ending is the job's, not a failure of each task (the task that stopped first,
  or the one the others waited for, is what the other signals look for).
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

from analyzer.diagnose.common import _utc
from analyzer.diagnose.facts import Facts

STOPPED_TOGETHER_S = 10.0  #: logs that end with a kill signal this close together were stopped
_TASK_ID_RE = re.compile(r"^[\w-]+:\d+$")
_OUTSIDE_SIGNAL_RE = re.compile(
    r"SIGTERM|SIGKILL|SIGINT|Terminated|\bKilled\b|status=(?:9/KILL|15/TERM|2/INT)"
    r"|\bStopp(?:ing|ed) [\w@.:-]+\.service",  # (systemd's stop job of the task's unit)
    re.I,
)


def job_level_logs(facts: dict[str, Facts]) -> set[str]:
    """Nodes that are no task: an id that is no ``job:index`` while others are, and no spec,
    address or task entry of their own."""
    if not any(_TASK_ID_RE.match(n) for n in facts):
        return set()
    return {
        n
        for n, f in facts.items()
        if not _TASK_ID_RE.match(n) and not f.cluster and not f.address and not f.task
    }


def stopped_together(
    facts: dict[str, Facts],
    outside: set[str],
    told: set[str] | frozenset = frozenset(),
    end: Any = None,
) -> set[str]:
    """Tasks whose logs end with a kill signal within ``STOPPED_TOGETHER_S`` of the last such
    end, when there are two or more of them: the job was stopped from outside. A task that an
    outside stop line names (``told``: the launcher or scheduler says it sent the signal to
    it) and whose log ends with a kill signal was stopped with the job whatever its clock says
    (a host's clock may be off by more than the window; the line names it). ``end``: when the
    job's training finished (None: it did not); a stop after it is the job's teardown, and a
    task stopped before it is not one of those stopped with the teardown."""
    named = {
        n
        for n in told
        if n in facts
        and n not in outside
        and facts[n].ending == "killed"
        and _OUTSIDE_SIGNAL_RE.search(facts[n].exit_info or "")
    }
    return _killed_together(facts, outside, end) | (named if len(named) >= 2 else set())


def _killed_together(facts: dict[str, Facts], outside: set[str], end: Any = None) -> set[str]:
    killed: dict[str, Any] = {
        n: f.last_time
        for n, f in facts.items()
        if n not in outside
        and f.ending == "killed"
        and f.last_time is not None
        and not pd.isna(f.last_time)
        and _OUTSIDE_SIGNAL_RE.search(f.exit_info or "")
    }
    if len(killed) < 2:
        return set()
    latest = max(killed.values())
    together = {n for n, t in killed.items() if (latest - t).total_seconds() <= STOPPED_TOGETHER_S}
    # the tasks that ended on their own (a goodbye, their own failure) ended the job's work:
    # stops after the last of them (or after the training finished) are the job's teardown,
    # and a task stopped before that was taken away on its own, not with the teardown
    own = [
        f.last_time
        for n, f in facts.items()
        if n not in outside
        and n not in killed
        and not f.missing
        and f.ending in ("clean", "exception", "killed")
        and f.last_time is not None
        and not pd.isna(f.last_time)
    ]
    if end is not None and not pd.isna(end):
        own.append(end)
    boundary = max(own, default=None)
    if boundary is not None and latest >= boundary:
        together = {n for n in together if killed[n] >= boundary}
    return together if len(together) >= 2 else set()


def work_done(facts: dict[str, Facts], serving: set[str], outside: set[str], end: Any) -> Any:
    """When the job's work was done: ``end`` (a node said its training finished), else, if
    every task that trained (not one that only serves) ended cleanly (its goodbye) though no
    line said the training finished, when the first of them ended (the first: a clock running
    ahead cannot make it later); else None."""
    if end is not None and not pd.isna(end):
        return end
    trainers = [f for n, f in facts.items() if n not in serving and n not in outside]
    trainers = [f for f in trainers if not f.missing]
    if not trainers or any(f.ending != "clean" for f in trainers):
        return None
    times = [f.last_time for f in trainers]
    if any(t is None or pd.isna(t) for t in times):
        return None
    return _utc(pd.Series(times)).min()
