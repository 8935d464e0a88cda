"""Deciding what really happened in a run (exit codes, evidence, who ended it): the truth
of a cell, never tfdiag's diagnosis.
"""

from __future__ import annotations

import re
import signal

from .._runner import Lab
from .cells import (
    Cell,
)
from .faults import ANY_ERROR, BIND_ERROR, PHASES, Fault
from .launch import (
    PREEMPT_GRACE,
    CellError,
    _read_all,
    _Run,
)
from .styles import (
    Style,
)


def _settle(lab: Lab, cell: Cell, style: Style, fault: Fault, run: _Run, codes: dict) -> None:
    """Decide what really happened; fill run.category / expect / notes; raise CellError."""
    target = run.target
    started = [n for n in run.nodes if n in lab.procs]
    # a TFJob's pods the operator deleted once the job had ended did not fail it
    deleted = run.kubelet.deleted if run.kubelet else set()
    if run.journal is not None:  # the units the operator stopped once the job had ended
        deleted = set(run.journal.operator_stopped)
    if run.ray is not None:  # the worker actors Ray Train ended after their training returned
        deleted = run.ray.finished
    if run.sup is not None:  # the programs the operator stopped (supervisorctl stop all)
        deleted = set(run.sup.operator_stopped)
    if run.honcho is not None:  # the processes honcho stopped once one of them had ended
        deleted = set(run.honcho.stopped_by_honcho())
    if run.par is not None:  # the jobs parallel stopped (its halt, or a SIGTERM to it)
        deleted = set(run.par.stopped_by_parallel())
    if run.pdsh is not None:  # the commands pdsh's abort signalled (Ctrl-C twice)
        deleted = set(run.pdsh.stopped_by_pdsh())
    if run.runit is not None:  # the services the operator force-stopped (sv force-stop)
        deleted = set(run.runit.operator_stopped)
    if run.tmux is not None:  # the windows the operator Ctrl-C'd or hung up (kill-server)
        deleted = set(run.tmux.operator_stopped)
    failed = [n for n in started if codes.get(n) not in (0, None) and n not in deleted]
    peers = [n for n in started if n != target]
    stalled = run.ended_by == "launcher_timeout"
    all_ok = not failed and not stalled

    def after_fault(rx: str) -> list[str]:
        """The peers whose logs match ``rx`` after the fault (not in their start-up retries:
        a tf.data service worker logs 'Failed to Worker heartbeat' until its dispatcher is up)."""
        return [n for n in peers if re.search(rx, _read_all(lab, n)[run.offsets.get(n, 0) :])]

    def spec(s: str) -> str:
        if s == "target":
            return target
        if s == "peers":
            return "|".join(peers)
        return "|".join(started)

    run.expect = [(spec(s), rx) for s, rx in fault.evidence]
    if fault.sig == signal.SIGSTOP and all(codes.get(n) == 0 for n in style.train_nodes):
        # what a peer logs at shutdown (a trainer that finished and left) is not the stall's
        raise CellError(f"the job finished while {target} was frozen: nothing stalled; {codes}")
    if fault.exit_code is not None and codes.get(target) != fault.exit_code:
        raise CellError(f"{target} exit code {codes.get(target)}, expected {fault.exit_code}")
    if fault.ended_by_launcher and not stalled:
        raise CellError(f"the job did not stall (it {run.ended_by}); codes {codes}")
    if fault.must_fail and all_ok:
        raise CellError(f"every task ended cleanly; codes {codes}")

    if fault.kind in ("none", "old"):
        if not all_ok:
            raise CellError(f"healthy run failed: {codes}, {run.ended_by}")
        run.expect = [(style.progress_node, r"training finished after|worker 0 done")]
        run.target = None
    elif fault.name == "kill_onfailure":
        first = run.kubelet.first_exit.get(target)
        if first != -9 or not run.kubelet.restarts.get(target):
            raise CellError(f"{target} was not restarted after its SIGKILL: {first}, {codes}")
    elif fault.name == "kill_restart":
        first = run.journal.first_exit.get(target)
        if first != -9 or not run.journal.restarts.get(target):
            raise CellError(f"{target} was not restarted after its SIGKILL: {first}, {codes}")
    elif fault.name in ("preempt", "preempt_job"):
        # a cancelled Spark application: pyspark's daemon ends its workers' process group
        # with SIGHUP when its executor is stopped
        hup = (-1,) if fault.name == "preempt_job" and style.config == "spark" else ()
        # a Ray worker process's SIGTERM handler exits it with code 1 ('The process receives a
        # SIGTERM'), as does Ray's end of a job's actors once its driver is gone
        if style.config == "ray":
            hup = (1,)
        # tmux kill-session: the pane's shell hangs up its jobs (SIGHUP)
        if fault.name == "preempt_job" and style.config == "tmux":
            hup = (-1,)
        if codes.get(target) not in (-15, -9, 42, 143, *hup):
            raise CellError(f"{target} exit code {codes.get(target)} after SIGTERM")
        if run.ray is not None and target in run.ray.finished:
            # TensorFlow's preemption notifier caught the SIGTERM and the training went on
            # to its end: Ray ended the actor afterwards, nothing was preempted
            raise CellError(f"{target}'s training returned after the SIGTERM; {codes}")
        if style.preempt_args and cell.phase == "training" and fault.name == "preempt":
            run.expect.append((target, r"received termination notice|Termination caught"))
        if run.extra.get("killed_after_grace"):
            run.notes.append(
                f"{target} caught the SIGTERM (TensorFlow's preemption notifier) and kept "
                f"running; the launcher SIGKILLed it after a {PREEMPT_GRACE:.0f} s grace period, "
                "as a kubelet does."
            )
    elif fault.kind == "throttle" or fault.name == "straggler":
        if not all_ok:
            raise CellError(f"straggler run did not finish cleanly: {codes}, {run.ended_by}")
        run.expect = [(style.progress_node, r"training finished after|worker 0 done")]
        run.extra["step_seconds"] = _step_times(lab, style)
    elif fault.kind == "hdf5":
        writers, errors = [], {}
        for n in started:
            text = _read_all(lab, n)
            m = list(
                re.finditer(
                    r"^\w+Error: .*(Unable to|unable to|truncated|holds the weights|"
                    r"bad object header|not a valid|signature).*$",
                    text,
                    re.M,
                )
            )
            if m and codes.get(n) not in (0, None):
                writers.append(n)
                errors[n] = m[-1].group(0)[:300]
        if not writers:
            raise CellError(f"no writer failed on the shared HDF5 file; codes {codes}")
        starts = {}
        for n in started:
            m = re.search(
                r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}) - \w+ - saving weights to",
                _read_all(lab, n),
                re.M,
            )
            if m:
                starts[n] = f"{m.group(1).replace(' ', 'T')}.{m.group(2)}000Z"
        if run.ray is not None and not starts:  # a Ray worker's lines carry no time
            starts = {n: t for n, t in run.ray.logged_at("saving weights to").items()}
        if len(writers) > 1 and not starts:
            raise CellError(f"writers {writers} failed and no log says which saved first")
        first = min(writers, key=lambda n: (starts.get(n, "~"), n))
        run.target = first
        if starts:
            lab.fault_time_utc = min(starts.values())
        run.expect = [(first, re.escape(errors[first][:80]))]
        run.extra.update({"failed_writers": writers, "writer_errors": errors})
        run.extra["save_started_utc"] = starts
    elif fault.name == "dup_port":
        text = _read_all(lab, target)
        if re.search(BIND_ERROR, text):
            run.category = "address_in_use"
            run.expect = [(target, BIND_ERROR)]
            run.notes.append("The second task to bind the shared port failed to bind it.")
        else:
            run.category = "cluster_spec_mismatch"
            run.expect = [(target, style.config_re)]
            run.notes.append(
                "The second task bound the shared port too (gRPC sets SO_REUSEPORT), so "
                "nothing failed to bind: two tasks answer on one address and the cluster "
                "misbehaves; recorded as cluster_spec_mismatch."
            )
    elif fault.name == "late":
        if all_ok:
            run.category, run.target = "none", None
            run.notes.append(
                f"{target} joined late but the job succeeded: recorded as healthy (none)."
            )
            run.expect = [(style.progress_node, r"training finished after|worker 0 done")]
        else:
            run.category = "session_blocked"
            run.expect = [(spec("any"), ANY_ERROR)]
    elif fault.name == "version":
        ver = rf"^tf\.__version__ = (?!{re.escape(style.release)}\.)"
        if all_ok:
            run.category, run.target = "none", None
            run.notes.append(
                f"{target} ran the older release and the job still succeeded: recorded as "
                "healthy (none), with mixed releases."
            )
            run.expect = [(target, ver)]
        else:
            run.category = "version_mismatch"
            run.expect = [(target, ver), (spec("any"), ANY_ERROR)]
    elif fault.name == "stall_deadline":
        deadline = r"DEADLINE_EXCEEDED|DeadlineExceeded|[Tt]imed out"
        if after_fault(deadline):
            run.category = "deadline_exceeded"
            run.expect = [("|".join(after_fault(deadline)), deadline)]
        elif stalled:
            run.category = "hang"
            run.notes.append(
                "The timeouts were set but nothing timed out: the peers waited on the frozen "
                f"{target} until the launcher ended the job, so this is recorded as hang."
            )
        else:
            raise CellError(f"neither a deadline error nor a stall: {codes}")
    elif fault.name == "stall_notimeout":
        beat = r"stopped sending heartbeats|[Hh]eartbeat"
        if stalled:
            run.category = "hang"
        elif after_fault(beat):
            run.category = "coordination_failure"
            run.expect = [("|".join(after_fault(beat)), beat)]
            run.notes.append(
                f"No timeout was set, but the coordination service noticed that the frozen "
                f"{target} stopped sending heartbeats and aborted the collectives of its "
                "peers: recorded as coordination_failure on the frozen task."
            )
        else:
            raise CellError(f"neither a stall nor a heartbeat failure: {codes}")
    elif fault.kind in ("tfconfig",):
        run.expect = [(target, style.config_re)]
    elif fault.kind == "missing":
        pass
    if fault.kind == "squatter" and codes.get(target) in (0, None):
        raise CellError(f"{target} did not fail to bind: {codes}")


STEP_TIME_RE = r"loss [-\d.naif]+ \((\d+\.\d+) s\)"


def step_time_stats(texts: dict[str, str]) -> dict[str, dict[str, float]]:
    """Per node: mean, median and max of the '(x s)' step times its step lines print."""
    out = {}
    for n, text in texts.items():
        vals = sorted(float(v) for v in re.findall(STEP_TIME_RE, text))
        if vals:
            out[n] = {
                "mean": round(sum(vals) / len(vals), 3),
                "median": round(vals[len(vals) // 2], 3),
                "max": round(vals[-1], 3),
                "steps": len(vals),
            }
    return out


def _step_times(lab: Lab, style: Style) -> dict[str, dict[str, float]]:
    return step_time_stats({n: lab.read(n) for n in style.train_nodes if n in lab.procs})


def _describe(cell: Cell, style: Style, fault: Fault, run: _Run) -> str:
    who = f" Target: {run.target or cell.role}." if cell.role not in ("none",) else ""
    return f"{fault.description}{who} Cluster: {style.cluster}. Phase: {PHASES[cell.phase]}."
