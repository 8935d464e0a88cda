"""Starting a cell's cluster: interpreters, ports, TF_CONFIGs, each launcher style's start,
the waits for a phase and the fault's injection.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from .. import compose, honcho, kubernetes, mpi, pdsh, runit, slurm, spark, supervisord, systemd
from .. import parallel as gnu_parallel
from .. import ray as raylab
from .. import tmux as tmuxlab
from .._runner import TASKS_DIR, Lab, first_existing, free_ports, utc_now
from .cells import (
    Cell,
    file_name,
)
from .faults import Fault
from .styles import (
    ALT_PYTHON_ENV,
    OLD_RELEASE_CANDIDATES,
    Style,
)


def old_python() -> str | None:
    return first_existing(ALT_PYTHON_ENV, OLD_RELEASE_CANDIDATES)


def style_python(style: Style) -> str | None:
    """The interpreter a style with its own TensorFlow runs on (None: the lab venv's)."""
    if style.python is None:
        return None
    env, candidates = style.python
    found = first_existing(env, candidates)
    if found is not None:
        return found
    raise CellError(f"{style.name} needs TensorFlow {style.release} (set {env})")


class CellError(RuntimeError):
    """The cell's fault did not show up as planned (or the cluster never started)."""


# ----------------------------------------------------------------------------- launcher
def _consecutive_ports(n: int) -> int:
    """The first of ``n`` consecutive free ports on 127.0.0.1 (SlurmClusterResolver gives the
    tasks of a node consecutive ports from its port_base)."""
    import random
    import socket

    for _ in range(200):
        base = random.randrange(20000, 60000 - n)
        socks = []
        try:
            for port in range(base, base + n):
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                socks.append(s)
                s.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise CellError(f"no {n} consecutive free ports")


def _cluster(style: Style) -> dict[str, list[str]]:
    if style.config == "slurm":
        base = _consecutive_ports(len(style.nodes))
        ports = iter(range(base, base + len(style.nodes)))
        return {job: [f"{slurm.NODE}:{next(ports)}" for _ in range(n)] for job, n in style.jobs}
    ports = iter(free_ports(len(style.nodes)))
    return {job: [_address(style, job, i, next(ports)) for i in range(n)] for job, n in style.jobs}


def _address(style: Style, job: str, index: int, port: int) -> str:
    """A task's address in a cluster spec: 127.0.0.1, or a TFJob replica's service name."""
    if style.config == "k8s":
        return kubernetes.service(job, index, port)
    if style.config == "compose":
        return compose.service(index, port)
    if style.config == "systemd":
        return systemd.address(job, index, port)
    return f"127.0.0.1:{port}"


def _tfc(cluster: dict, node: str) -> dict:
    job, index = node.split(":")
    return {"cluster": cluster, "task": {"type": job, "index": int(index)}}


def _dtensor_env(spec: dict) -> dict[str, str]:
    """A TF_CONFIG-shaped spec as the DTENSOR_* variables a DTensor client is launched with
    (one job; the client id is the task index; DTENSOR_JOBS lists every client in order)."""
    job, index = spec["task"]["type"], spec["task"]["index"]
    jobs = spec["cluster"][job]
    return {
        "DTENSOR_CLIENT_ID": str(index),
        "DTENSOR_NUM_CLIENTS": str(len(jobs)),
        "DTENSOR_JOB_NAME": job,
        "DTENSOR_JOBS": ",".join(jobs),
    }


def _port(addr: str) -> int:
    return int(addr.rsplit(":", 1)[1])


def _subst(args, style: Style, scratch: Path, target: str | None) -> list[str]:
    vals = {
        "scratch": str(scratch),
        "third": str(max(2, style.steps // 3)),
        "half": str(style.steps // 2),
        "dim": style.shape_dim,
        "feed": style.feed_dtype,
    }
    return [a.format(**vals) for a in args]


class _Watch:
    """Follows training progress in the train nodes' logs."""

    def __init__(self, lab: Lab, style: Style):
        self.lab, self.style = lab, style
        self.rx = re.compile(style.step_re)
        self.count = -1
        self.last_change = time.monotonic()

    def poll(self) -> int:
        n = 0
        for node in self.style.train_nodes:
            if node in self.lab.procs:
                n += len(self.rx.findall(self.lab.read(node)))
        if n != self.count:
            self.count = n
            self.last_change = time.monotonic()
        return n

    def step(self, node: str) -> int:
        found = self.rx.findall(self.lab.read(node)) if node in self.lab.procs else []
        return int(found[-1]) if found else 0


def _launcher_line(lab: Lab, text: str, event: str = "") -> None:
    """A job-level line: into launcher.log, or to the style's scheduler (``lab.job_log``),
    which writes only what that scheduler itself prints for ``event``."""
    if lab.job_log is not None:
        lab.job_log(event)
        return
    path = lab.out_dir / "launcher.log"
    with open(path, "a", encoding="utf-8") as f:
        f.write(f"{utc_now()} tfdiag-lab launcher: {text}\n")


def _wait_end(lab: Lab, style: Style, stopped: set[str], *, grace: float, idle: float) -> str:
    """Wait until every live train node exited; end the job on a stall.  Returns how it ended."""
    watch = _Watch(lab, style)
    started = time.monotonic()
    while True:
        live = [
            n
            for n in style.train_nodes
            if n in lab.procs and n not in stopped and lab.procs[n].popen.poll() is None
        ]
        if not live and lab.restarting is not None and lab.restarting():
            time.sleep(0.2)  # kubelet restarts a container (restartPolicy OnFailure)
            continue
        if not live:
            return "exited"
        if lab.remaining() <= 5:
            break
        n = watch.poll()
        since = time.monotonic() - watch.last_change
        limit = idle if n > 0 else grace
        if n == 0:
            since = time.monotonic() - started
        if since > limit:
            break
        time.sleep(0.2)
    # the scheduler's time limit: SIGTERM everyone, then SIGKILL what is left
    alive = [n for n, p in lab.procs.items() if p.popen.poll() is None]
    _launcher_line(
        lab,
        f"no training progress for {idle:.0f} s (step lines seen: {max(watch.count, 0)}); "
        f"job time limit reached, sending SIGTERM to {', '.join(alive)}",
        "time_limit",
    )
    for node in alive if not lab.job_ends_tasks else ():
        with contextlib.suppress(ProcessLookupError):
            os.kill(lab.procs[node].popen.pid, signal.SIGTERM)
    time.sleep(5)
    left = [n for n, p in lab.procs.items() if p.popen.poll() is None]
    if left:
        _launcher_line(lab, f"still running after 5 s: {', '.join(left)}; sending SIGKILL")
    return "launcher_timeout"


def _wait_phase(lab: Lab, style: Style, phase: str, target: str | None) -> None:
    if phase == "startup":
        node = target if target in lab.procs else style.progress_node
        m = lab.wait_for(node, style.started_re, 120)
        if not m:
            raise CellError(f"{node} never started its server")
        return
    if phase == "training":
        third = max(2, style.steps // 3)
        end = time.monotonic() + min(150, lab.remaining())
        watch = _Watch(lab, style)
        while time.monotonic() < end:
            if watch.step(style.progress_node) >= third:
                return
            if lab.procs[style.progress_node].popen.poll() is not None:
                break
            time.sleep(0.1)
        raise CellError(f"{style.progress_node} never reached step {third}")
    if phase == "checkpoint":
        if not lab.wait_for(style.ckpt_node, style.ckpt_re, 150):
            raise CellError(f"{style.ckpt_node} never logged {style.ckpt_re!r}")
        return


def _throttle(lab: Lab, node: str, stop_s: float = 0.5, run_s: float = 0.1) -> None:
    """Duty-cycle a process with SIGSTOP/SIGCONT until it exits (a CPU quota)."""
    import threading

    def loop():
        p = lab.procs[node].popen
        while p.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(p.pid, signal.SIGSTOP)
            time.sleep(stop_s)
            with contextlib.suppress(ProcessLookupError):
                os.kill(p.pid, signal.SIGCONT)
            time.sleep(run_s)

    threading.Thread(target=loop, daemon=True, name="throttle").start()


PREEMPT_GRACE = 5.0


def _preempt_grace(lab: Lab, node: str, run: _Run) -> None:
    """Like a kubelet: SIGTERM first, SIGKILL if the task is still there after the grace."""
    import threading

    _launcher_line(lab, f"preempting {node}: SIGTERM, SIGKILL after {PREEMPT_GRACE:.0f} s grace")

    def later():
        p = lab.procs[node].popen
        try:
            p.wait(PREEMPT_GRACE)
        except subprocess.TimeoutExpired:
            _launcher_line(lab, f"{node} still running after the grace period; SIGKILL")
            run.extra["killed_after_grace"] = True
            with contextlib.suppress(ProcessLookupError):
                os.kill(p.pid, signal.SIGKILL)

    threading.Thread(target=later, daemon=True, name="preempt-grace").start()


def _peer_of(style: Style, target: str) -> str:
    """A task the target talks to: the leader / chief / ps."""
    for cand in (style.roles.get("ps"), style.roles["chief"], style.roles["worker"]):
        if cand and cand != target:
            return cand
    raise CellError("no peer")


def _bad_tfconfig(fault: str, style: Style, cluster: dict, target: str) -> tuple[dict, dict]:
    job, index = target.split(":")
    spec = {j: list(a) for j, a in cluster.items()}
    extra: dict = {}
    if fault == "wrong_address":
        peer = _peer_of(style, target)
        pj, pi = peer.split(":")
        wrong = _address(style, pj, int(pi), free_ports(1)[0])
        extra = {"wrong_address": wrong, "right_address": spec[pj][int(pi)], "peer": peer}
        spec[pj][int(pi)] = wrong
        return {"cluster": spec, "task": {"type": job, "index": int(index)}}, extra
    if fault == "wrong_count":
        # a TFJob replica that has no pod has no service: its name does not resolve
        spec["worker"].append(_address(style, "worker", len(spec["worker"]), free_ports(1)[0]))
        extra = {"workers_in_target_spec": len(spec["worker"]), "workers": len(cluster["worker"])}
        return {"cluster": spec, "task": {"type": job, "index": int(index)}}, extra
    if fault == "wrong_index":
        other = 0 if int(index) != 0 else 1
        extra = {"claimed_task": f"{job}:{other}"}
        return {"cluster": spec, "task": {"type": job, "index": other}}, extra
    raise ValueError(fault)


@dataclass
class _Run:
    nodes: list[str]
    target: str | None
    category: str
    notes: list[str] = field(default_factory=list)
    expect: list[tuple[str, str]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    stopped: set[str] = field(default_factory=set)
    extra: dict = field(default_factory=dict)
    ended_by: str = ""
    python: dict[str, str] = field(default_factory=dict)
    # how much of each log there was when the fault was injected (what came after it)
    offsets: dict[str, int] = field(default_factory=dict)
    srun: slurm.Srun | None = None  # the Slurm style's srun (its output and lines)
    kubelet: kubernetes.Kubelet | None = None  # the TFJob style's runtime (its pods' logs)
    dockerd: compose.Dockerd | None = None  # the compose style's daemon (its containers' logs)
    journal: systemd.Journald | None = None  # the systemd style's PID 1 and journald
    mpi: mpi.Mpirun | None = None  # the mpi style's one real mpirun (its output, its ranks)
    spark: spark.Spark | None = None  # the spark style's cluster, application and tasks
    ray: raylab.Ray | None = None  # the ray style's head node, driver and worker actors
    sup: supervisord.Supervisord | None = None  # the supervisord style's one real supervisord
    honcho: honcho.Honcho | None = None  # the honcho style's one real honcho (its output)
    par: gnu_parallel.Parallel | None = None  # the parallel style's one real GNU parallel
    pdsh: pdsh.Pdsh | None = None  # the pdsh style's one real pdsh (its output)
    runit: runit.Runit | None = None  # the runit style's one real runsvdir (its services)
    tmux: tmuxlab.Tmux | None = None  # the tmux style's one real tmux server (its windows)


def _port_bases(style: Style, fault: Fault, cluster: dict, target, extra: dict) -> dict:
    """Each task's SlurmClusterResolver port_base (its tasks' ports are consecutive from it):
    the cluster's first port, but a wrong address puts the target's view of the peer (and of
    every task) on the wrong port, and two tasks on one port give the target a base that puts
    its own port on the peer's. Empty for the other styles."""
    if style.config != "slurm":
        return {}
    job = style.jobs[0][0]
    base = _port(cluster[job][0])
    bases = {n: base for n in style.nodes}
    if fault.name == "wrong_address":
        peer = int(extra["peer"].split(":")[1])
        bases[target] = _port(extra["wrong_address"]) - peer
        extra["wrong_port_base"], extra["port_base"] = bases[target], base
    if fault.name == "dup_port":
        peer = int(extra["port_shared_with"].split(":")[1])
        bases[target] = base + peer - int(target.split(":")[1])
        extra["target_port_base"], extra["port_base"] = bases[target], base
    return bases


def _launch(lab: Lab, cell: Cell, style: Style, fault: Fault) -> _Run:
    """Start the cluster with the fault (or arm it), inject it, wait for the end."""
    cluster = _cluster(style)
    nodes = style.nodes
    target = style.roles.get(cell.role) if cell.role not in ("none", "any") else None
    run = _Run(nodes, target, fault.category)
    own = style_python(style)
    # the other release: the older one, or the lab venv's for a style on its own release
    old = sys.executable if own else old_python()
    if fault.kind in ("old", "signal+old", "alt") and not old:
        raise CellError("needs the older TensorFlow release (set TFDIAG_LAB_ALT_PYTHON)")
    base = [*style.args, "--steps", str(style.steps)]
    if cell.phase == "checkpoint" and fault.kind != "hdf5":
        base += list(style.ckpt_args)
    if fault.all_args == "timeout":
        base += list(style.timeout_args)
    if (
        fault.kind in ("signal", "job_signal")
        and fault.sig == signal.SIGTERM
        and cell.phase == "training"
    ):
        base += list(style.preempt_args)
    if fault.kind == "hdf5":
        shared = lab.scratch / "shared_logdir"
        shared.mkdir()
        run.extra["shared_file"] = str(shared / "model_weights.h5")
        base += ["--save-h5", run.extra["shared_file"], "--steps", "20"]
    base = _subst(base, style, lab.scratch, target)
    env = dict(fault.env)
    specs = {n: _tfc(cluster, n) for n in nodes}
    delayed: dict[str, float] = {}
    if fault.kind == "tfconfig":
        specs[target], extra = _bad_tfconfig(fault.name, style, cluster, target)
        run.extra.update(extra)
    if fault.kind == "dup_port":
        peer = _peer_of(style, target)
        pj, pi = peer.split(":")
        tj, ti = target.split(":")
        spec = {j: list(a) for j, a in cluster.items()}
        spec[tj][int(ti)] = spec[pj][int(pi)]
        specs = {n: _tfc(spec, n) for n in nodes}
        run.extra.update({"shared_address": spec[pj][int(pi)], "port_shared_with": peer})
        delayed[target] = 3.0
    if fault.kind == "late":
        delayed[target] = 15.0
    if fault.kind == "squatter" and style.config not in ("spark", "ray"):
        port = _port(cluster[target.split(":")[0]][int(target.split(":")[1])])
        if not lab.squat(port):
            raise CellError("squatter could not bind")
        run.extra["bound_port"] = port
        lab.mark_fault()
    if fault.kind in ("tfconfig", "missing", "alt", "dup_port"):
        lab.mark_fault()
    if fault.kind == "missing":
        run.missing = [target]
    bases = _port_bases(style, fault, cluster, target, run.extra)
    if style.config == "slurm":
        job = slurm.job_id(cell.seed)
        tasks = {n: int(n.split(":")[1]) for n in nodes}
        run.srun = slurm.Srun(lab.out_dir, job, cell.naming == "srun_label", tasks)
        lab.job_log = run.srun.job_event
        run.srun.watch(lab.procs)
        run.extra["slurm_job_id"] = job
        run.extra["slurm_output"] = slurm.OUTPUT_FORMS[cell.naming]
    if style.config == "k8s":
        missing = kubernetes.check_names()
        if missing:
            raise CellError(missing)
        on_failure = fault.name == "kill_onfailure"
        run.kubelet = kubernetes.Kubelet(lab.out_dir, cell.naming, cell.seed, nodes, on_failure)
        lab.job_log = run.kubelet.job_event
        lab.restarting = run.kubelet.restart_due
        run.kubelet.watch(lab.procs, style.roles["chief"])
        run.extra["kubernetes_output"] = kubernetes.OUTPUT_FORMS[cell.naming]
    if style.config == "compose":
        missing = compose.check_names()
        if missing:
            raise CellError(missing)
        run.dockerd = compose.Dockerd(lab.out_dir, cell.naming, cell.seed, nodes)
        lab.job_log = run.dockerd.job_event
        run.extra["compose_output"] = compose.OUTPUT_FORMS[cell.naming]
    if style.config == "systemd":
        missing = systemd.check_names()
        if missing:
            raise CellError(missing)
        run.journal = systemd.Journald(
            lab.out_dir, cell.naming, nodes, restart=fault.name == "kill_restart"
        )
        lab.job_log = run.journal.job_event
        lab.restarting = run.journal.restart_due
        run.journal.watch(lab.procs)
        run.extra["systemd_output"] = systemd.OUTPUT_FORMS[cell.naming]
    if style.config == "mpi":
        missing = mpi.check()
        if missing:
            raise CellError(missing)
        if run.missing and run.missing != nodes[-len(run.missing) :]:
            raise CellError("mpirun -np N leaves out the last ranks only")
        ranks = [n for n in nodes if n not in run.missing]
        run.mpi = mpi.Mpirun(lab.out_dir, cell.naming, cell.seed, ranks)
        lab.job_log = run.mpi.job_event
        run.extra["mpi_output"] = mpi.OUTPUT_FORMS[cell.naming]
        run.extra["batch_job_id"] = run.mpi.job
    plan: dict = {}
    if style.config == "spark":
        missing = spark.check()
        if missing:
            raise CellError(missing)
        if run.missing and run.missing != nodes[-len(run.missing) :]:
            raise CellError("a stage of fewer partitions leaves out the last tasks only")
        tasks = [n for n in nodes if n not in run.missing]
        run.spark = spark.Spark(lab.out_dir, cell.naming, cell.seed, tasks, lab.scratch)
        lab.job_log = run.spark.job_event
        lab.job_ends_tasks = True
        run.extra["spark_output"] = spark.OUTPUT_FORMS[cell.naming]
        plan = _spark_plan(style, fault, cluster, specs, target, run, delayed, env)
    if style.config == "ray":
        missing = raylab.check(own)
        if missing:
            raise CellError(missing)
        if run.missing and run.missing != nodes[-len(run.missing) :]:
            raise CellError("a trainer of fewer workers leaves out the last ranks only")
        tasks = [n for n in nodes if n not in run.missing]
        if fault.kind == "squatter":
            # Ray's workers have TensorFlow imported before their training starts: a port is
            # bound within a second of Ray Train picking it; the target starts 3 s later
            delayed[target] = 3.0
        run.ray = raylab.Ray(lab.out_dir, cell.naming, cell.seed, tasks, lab.scratch, own)
        lab.job_log = run.ray.job_event
        lab.job_ends_tasks = True
        run.extra["ray_output"] = raylab.OUTPUT_FORMS[cell.naming]
        plan = _spark_plan(style, fault, cluster, specs, target, run, delayed, env)
        # the fault's variables in the job's runtime_env (HDF5 reads its locking switch when
        # h5py loads, before the training function runs)
        plan["job_env"] = dict(fault.env)

    if style.config == "supervisord":
        missing = supervisord.check()
        if missing:
            raise CellError(missing)
        run.sup = supervisord.Supervisord(lab.out_dir, cell.naming, nodes, lab.scratch)
        lab.job_log = run.sup.job_event
        lab.job_ends_tasks = True  # the operator's supervisorctl stop all ends the tasks
        run.extra["supervisord_output"] = supervisord.OUTPUT_FORMS[cell.naming]
    if style.config == "honcho":
        missing = honcho.check()
        if missing:
            raise CellError(missing)
        if run.missing and honcho.concurrent(cell.seed) and run.missing != nodes[-1:]:
            raise CellError("honcho -c worker=N leaves out the last workers only")
        run.honcho = honcho.Honcho(lab.out_dir, cell.naming, cell.seed, nodes, lab.scratch)
        lab.job_log = run.honcho.job_event
        lab.job_ends_tasks = True  # SIGTERM to honcho, which stops every process
        run.extra["honcho_output"] = honcho.OUTPUT_FORMS[cell.naming]
    if style.config == "parallel":
        missing = gnu_parallel.check()
        if missing:
            raise CellError(missing)
        run.par = gnu_parallel.Parallel(lab.out_dir, cell.naming, cell.seed, nodes, lab.scratch)
        lab.job_log = run.par.job_event
        lab.job_ends_tasks = True  # SIGTERM to parallel, which stops every job (--termseq)
        run.extra["parallel_output"] = gnu_parallel.OUTPUT_FORMS[cell.naming]
    if style.config == "pdsh":
        missing = pdsh.check()
        if missing:
            raise CellError(missing)
        run.pdsh = pdsh.Pdsh(lab.out_dir, cell.naming, cell.seed, nodes, lab.scratch)
        lab.job_log = run.pdsh.job_event
        lab.job_ends_tasks = True  # pdsh exits once its commands have; Ctrl-C's abort it
        run.extra["pdsh_output"] = pdsh.OUTPUT_FORMS[cell.naming]
    if style.config == "runit":
        missing = runit.check()
        if missing:
            raise CellError(missing)
        run.runit = runit.Runit(lab.out_dir, cell.naming, cell.seed, nodes, lab.scratch)
        lab.job_log = run.runit.job_event
        lab.job_ends_tasks = True  # the operator's sv force-stop ends the services
        run.extra["runit_output"] = runit.OUTPUT_FORMS[cell.naming]
    if style.config == "tmux":
        missing = tmuxlab.check(cell.naming)
        if missing:
            raise CellError(missing)
        run.tmux = tmuxlab.Tmux(lab.out_dir, cell.naming, cell.seed, nodes, lab.scratch)
        lab.job_log = run.tmux.job_event
        lab.job_ends_tasks = True  # the operator's Ctrl-C and kill-server end the tasks
        run.extra["tmux_output"] = tmuxlab.OUTPUT_FORMS[cell.naming]

    def start(node: str, log_rel: str | None = None) -> None:
        args = list(base)
        if node == target and fault.kind == "args":
            args += _subst(fault.args, style, lab.scratch, target)
        if fault.kind == "args" and node == style.driver and target not in (None, node):
            args += [*_subst(fault.args, style, lab.scratch, target), "--fault-task", target]
        python = own
        if fault.kind in ("old", "signal+old") or (fault.kind == "alt" and node == target):
            python = old
            if fault.kind == "alt":
                args += list(style.alt_args)
        if fault.kind == "alt" and node == style.roles["chief"] and node != target:
            args += list(style.alt_args)
        run.python[node] = python or sys.executable
        tf_config, node_env = specs[node], dict(env)
        if style.outside:
            kept = {j: a for j, a in tf_config["cluster"].items() if j not in style.outside}
            tf_config = {**tf_config, "cluster": kept}
        if style.config == "dtensor":
            tf_config = None
            node_env.update(_dtensor_env(specs[node]))
        if style.config == "slurm":
            tf_config = None
            task = specs[node]["task"]
            n = len(specs[node]["cluster"][task["type"]])
            node_env.update(slurm.task_env(run.srun.job, task["index"], n))
            args += ["--port-base", str(bases[node])]
        wrap = None
        if style.config == "k8s":  # the training-operator's TF_CONFIG; the pod's hostname
            tf_config = None
            pod = run.kubelet.pods[node]
            node_env.update({"TF_CONFIG": kubernetes.tf_config(specs[node]), "HOSTNAME": pod})
            node_env["TFDIAG_LAB_STOP_FILE"] = ""  # no goodbye: the operator deletes the pod
            wrap = ["unshare", "--uts", "sh", "-c", 'hostname "$0" && exec "$@"', pod]
        if style.config == "compose":  # the compose file's TF_CONFIG; dockerd's hostname
            tf_config = None
            host = run.dockerd.hostname(node)
            node_env.update({"TF_CONFIG": compose.tf_config(specs[node]), "HOSTNAME": host})
            node_env["TFDIAG_LAB_STOP_FILE"] = ""  # no goodbye: compose stops the containers
            wrap = ["unshare", "--uts", "sh", "-c", 'hostname "$0" && exec "$@"', host]
        if style.config == "mpi":  # the rank's app context in the one mpirun command
            spec = specs[node]
            args += ["--workers", ",".join(spec["cluster"]["worker"])]
            if spec["task"]["index"] != int(node.split(":")[1]):
                args += ["--task-index", str(spec["task"]["index"])]
            if node in delayed:  # the rank's script waits before it starts, inside mpirun
                args += ["--start-delay", f"{delayed[node]:g}"]
            log_style = "python" if node in style.python_log else "absl"
            node_env = {"TFDIAG_LAB_LOG_STYLE": log_style, **node_env}
            run.mpi.add(node, python or sys.executable, TASKS_DIR / style.script, args, node_env)
            return
        if style.config in ("spark", "ray"):  # the barrier task's child / the Ray worker's
            key = str(nodes.index(node))
            plan.setdefault("args", {})[key] = args
            plan.setdefault("python", {})[key] = python or sys.executable
            log_style = "python" if node in style.python_log else "absl"
            plan.setdefault("node_env", {})[key] = {"TFDIAG_LAB_LOG_STYLE": log_style, **node_env}
            return
        if style.config in ("supervisord", "runit", "tmux"):  # a [program:...], a service,
            # a tmux window
            log_style = "python" if node in style.python_log else "absl"
            program_env = {
                "PYTHONUNBUFFERED": "1",
                "CUDA_VISIBLE_DEVICES": "",
                "TFDIAG_LAB_LOG_STYLE": log_style,
                "TFDIAG_LAB_STOP_FILE": "",  # no goodbye: supervisorctl stop ends the servers
                "OMP_NUM_THREADS": "1",
                "TZ": "UTC",
                **node_env,
            }
            if tf_config is not None:
                program_env = {"TF_CONFIG": json.dumps(tf_config), **program_env}
            (run.sup or run.runit or run.tmux).add(
                node,
                python or sys.executable,
                TASKS_DIR / style.script,
                args,
                program_env,
                autostart=node not in delayed,
            )
            return
        if style.config == "honcho":  # a Procfile process (its TF_CONFIG on its line)
            log_style = "python" if node in style.python_log else "absl"
            task_env = {"TFDIAG_LAB_LOG_STYLE": log_style, **node_env}
            if tf_config is not None:
                task_env = {"TF_CONFIG": json.dumps(tf_config), **task_env}
            run.honcho.add(
                node,
                python or sys.executable,
                TASKS_DIR / style.script,
                args,
                task_env,
                workers=cluster["worker"],
                delay=delayed.get(node, 0.0),
            )
            return
        if style.config in ("parallel", "pdsh"):  # a job of parallel's input, a pdsh host
            log_style = "python" if node in style.python_log else "absl"
            task_env = {"TFDIAG_LAB_LOG_STYLE": log_style, **node_env}
            if tf_config is not None:
                task_env = {"TF_CONFIG": json.dumps(tf_config), **task_env}
            (run.par or run.pdsh).add(
                node,
                python or sys.executable,
                TASKS_DIR / style.script,
                args,
                task_env,
                cluster=cluster,
                delay=delayed.get(node, 0.0),
            )
            return
        exec_python = python
        if style.config == "systemd":  # the unit's Environment=TF_CONFIG; the host's name
            host = systemd.HOSTS[node]
            node_env["TFDIAG_LAB_STOP_FILE"] = ""  # no goodbye: systemctl stop ends the units
            wrap = ["unshare", "--uts", "sh", "-c", 'hostname "$0" && exec "$@"', host]
            exec_python = systemd.exec_path(python or sys.executable)
            run.journal.unit_started(node, exec_python)
        lab.start(
            node,
            style.script,
            log_rel or dict(cell.files).get(node) or file_name(cell.naming, style, node, cell.seed),
            tf_config=tf_config,
            args=args,
            env=node_env or None,
            python=exec_python,
            log_style="python" if node in style.python_log else "absl",
            tee=run.srun.tee if run.srun else (run.journal.tee if run.journal else None),
            sink=run.kubelet or run.dockerd,
            wrap=wrap,
        )

    if run.kubelet is not None:
        run.kubelet.restarter = start
    if run.journal is not None:
        run.journal.restarter = start
    # delays made inside the job
    inside = (
        run.mpi is not None
        or run.spark is not None
        or run.ray is not None
        or run.honcho is not None
        or run.par is not None
        or run.pdsh is not None
    )
    for node in nodes:
        if node in run.missing or (
            node in delayed
            and not inside
            and run.sup is None
            and run.runit is None
            and run.tmux is None
        ):
            continue
        start(node)  # supervisord: a delayed program is in the configuration, autostart=false
        # (runit: a delayed service is written, started later by sv once; tmux: a delayed
        # task's window is opened, its command typed later)
    if run.sup is not None:
        try:
            run.sup.launch(lab)
        except RuntimeError as exc:
            raise CellError(str(exc)) from exc
        run.extra["supervisord_started_utc"] = utc_now()
    if run.honcho is not None:
        run.honcho.launch(lab, env)
        run.extra["honcho_started_utc"] = utc_now()
    if run.par is not None:
        if run.missing:  # the input lines of the tasks that run (the cluster lists them all)
            run.par.tasks = [t for t in run.par.tasks if t["node"] not in run.missing]
        run.par.launch(lab, env)
        run.extra["parallel_started_utc"] = utc_now()
    if run.pdsh is not None:
        if run.missing:  # the hosts that run (the cluster lists them all)
            run.pdsh.tasks = [t for t in run.pdsh.tasks if t["node"] not in run.missing]
        run.pdsh.launch(lab, env)
        run.extra["pdsh_started_utc"] = utc_now()
    if run.runit is not None:
        try:
            run.runit.launch(lab)
        except RuntimeError as exc:
            raise CellError(str(exc)) from exc
        run.extra["runsvdir_started_utc"] = utc_now()
    if run.tmux is not None:
        try:
            run.tmux.launch(lab)
        except RuntimeError as exc:
            raise CellError(str(exc)) from exc
        run.extra["tmux_started_utc"] = utc_now()
    if run.mpi is not None:
        run.mpi.launch(lab, _mpi_env(lab, env))
        run.extra["mpirun_started_utc"] = utc_now()
    if run.spark is not None:
        try:
            run.spark.start_cluster()
        except RuntimeError as exc:
            raise CellError(str(exc)) from exc
        run.spark.submit_app(lab, plan, len(nodes) - len(run.missing))
        run.extra["spark_submit_started_utc"] = utc_now()
        if fault.kind == "squatter":  # the port the target's task picked, before TF binds it
            port = run.spark.own_port(target)
            if port is None or not lab.squat(port):
                raise CellError("squatter could not bind the target's port")
            run.extra["bound_port"] = port
            lab.mark_fault()
    if run.ray is not None:
        try:
            run.ray.start_cluster(lab)
        except RuntimeError as exc:
            raise CellError(str(exc)) from exc
        run.ray.submit(lab, plan, len(nodes) - len(run.missing))
        run.extra["ray_driver_started_utc"] = utc_now()
        if fault.kind == "squatter":  # the port Ray Train picked for the target, before TF
            port = run.ray.own_port(target)
            if port is None or not lab.squat(port):
                raise CellError("squatter could not bind the target's port")
            run.extra["bound_port"] = port
            lab.mark_fault()
    if fault.kind == "args":
        lab.mark_fault()
    for node, delay in delayed.items():
        time.sleep(delay)
        run.extra.setdefault("late_start_utc", {})[node] = utc_now()
        if run.sup is not None or run.runit is not None or run.tmux is not None:
            # supervisorctl start, sv once, the command typed into its tmux window
            (run.sup or run.runit or run.tmux).start_program(node)
        elif not inside:
            start(node)
        if fault.kind == "late":
            lab.mark_fault()

    if fault.kind in ("signal", "signal+old"):
        _wait_phase(lab, style, cell.phase, target)
        if run.journal is not None and fault.sig == signal.SIGTERM:
            # systemctl stop <unit>: SIGTERM and SIGCONT, SIGKILL after TimeoutStopSec
            lab.mark_fault()
            run.journal.stop(target, by_operator=False)
        elif run.sup is not None and fault.sig == signal.SIGTERM:
            # supervisorctl stop <program>: SIGTERM, SIGKILL after stopwaitsecs
            lab.mark_fault()
            run.sup.stop_program(target, by_operator=False)
        elif run.runit is not None and fault.sig == signal.SIGTERM:
            # sv term tf-worker-N: SIGTERM to its python (the lab's SIGKILL after the grace)
            lab.mark_fault()
            run.runit.stop_program(target)
        else:
            lab.signal(target, fault.sig)
        run.offsets = {n: len(lab.read(n)) for n in lab.procs}
        if fault.sig == signal.SIGSTOP:
            run.stopped.add(target)
        if fault.sig == signal.SIGTERM and run.journal is None and run.sup is None:
            _preempt_grace(lab, target, run)
    if fault.kind == "job_signal":  # the scheduler cancels the job: SIGTERM to mpirun
        _wait_phase(lab, style, cell.phase, target)
        lab.mark_fault()
        if run.spark is not None:  # ... or to spark-submit (the driver)
            run.spark.cancel()
        elif run.ray is not None:  # ... or to the Ray job's driver script
            run.ray.cancel()
        elif run.sup is not None:  # ... or to supervisord (its host going down)
            run.sup.terminate()
        elif run.honcho is not None:  # ... or to honcho (Ctrl-C's SIGTERM, a CI's cancel)
            run.honcho.terminate()
        elif run.par is not None:  # ... or to GNU parallel (a CI's cancel)
            run.par.terminate()
        elif run.pdsh is not None:  # ... or to pdsh and its commands (the job's cgroup)
            run.pdsh.terminate()
        elif run.runit is not None:  # ... or the host going down (runit's stage 3)
            run.runit.terminate()
        elif run.tmux is not None:  # ... or tmux kill-session (SIGHUP to every window)
            run.tmux.terminate()
        else:
            run.mpi.signal_mpirun(fault.sig, "cancel")
        run.offsets = {n: len(lab.read(n)) for n in lab.procs}
    if fault.kind == "executor_kill":  # an executor lost: SIGKILL to the target's executor
        _wait_phase(lab, style, cell.phase, target)
        lab.mark_fault()
        run.extra["executor_killed"] = run.spark.executors[target][0]
        run.extra["executor_pid"] = run.spark.kill_executor(target)
        run.offsets = {n: len(lab.read(n)) for n in lab.procs}
    if fault.kind == "throttle":
        _wait_phase(lab, style, "training", target)
        lab.mark_fault()
        _throttle(lab, target)

    idle = 20.0
    # a Spark job's first step comes after its daemons, driver, executors and Python workers
    # started (40 s and more on two busy cores)
    grace = 120.0 if style.config in ("spark", "ray") else 45.0
    run.ended_by = _wait_end(lab, style, run.stopped, grace=grace, idle=idle)
    if fault.kind in ("hdf5",):
        time.sleep(0.5)
    return run


def _spark_plan(
    style: Style,
    fault: Fault,
    cluster: dict,
    specs: dict,
    target: str | None,
    run: _Run,
    delayed: dict[str, float],
    env: dict,
) -> dict:
    """The application's plan (spark_app.py --plan): what each barrier task does beyond the
    healthy path. Its ports are picked by the tasks at run time, so a spec fault is an edit
    of the gathered cluster: a peer's port replaced, a worker added, another index; a
    missing task's address and a shared port are the ones the lab picked."""
    nodes = style.nodes
    plan: dict = {
        "env": {
            "PYTHONUNBUFFERED": "1",
            "CUDA_VISIBLE_DEVICES": "",
            "TFDIAG_LAB_STOP_FILE": "",  # no goodbye: the job ends when its tasks end
            "OMP_NUM_THREADS": "1",
            "TZ": "UTC",
            **env,
        },
        "delay": {str(nodes.index(n)): d for n, d in delayed.items()},
    }
    if run.missing:  # every task's TF_CONFIG lists the workers no partition runs
        plan["extra_workers"] = [specs[n]["cluster"]["worker"][nodes.index(n)] for n in run.missing]
    if target is None:
        return plan
    key = str(nodes.index(target))
    if fault.kind == "tfconfig":
        if fault.name == "wrong_address":
            peer = run.extra["peer"]
            edit = {"kind": fault.name, "peer": nodes.index(peer)}
            edit["port"] = _port(run.extra["wrong_address"])
        elif fault.name == "wrong_count":
            edit = {"kind": fault.name, "extra": specs[target]["cluster"]["worker"][-1]}
        else:
            edit = {"kind": fault.name, "index": specs[target]["task"]["index"]}
        plan["spec"] = {key: edit}
    if fault.kind == "dup_port":  # the script's fixed port, on both tasks of one host
        port = _port(run.extra["shared_address"])
        peer = run.extra["port_shared_with"]
        plan["fixed_port"] = {key: port, str(nodes.index(peer)): port}
    return plan


def _mpi_env(lab: Lab, env: dict) -> dict[str, str]:
    """mpirun's environment (its ranks inherit it): the lab's child settings, as Lab.start
    gives a task; as root Open MPI wants its two variables allowing it."""
    out = dict(os.environ)
    for k in ("TF_CONFIG", "PYTHONPATH"):
        out.pop(k, None)
    out.update(
        {
            "PYTHONUNBUFFERED": "1",
            "CUDA_VISIBLE_DEVICES": "",
            "TFDIAG_LAB_STOP_FILE": "",  # no goodbye: the job ends when mpirun's ranks end
            "OMP_NUM_THREADS": "1",
            "TZ": "UTC",
            **env,
        }
    )
    if os.geteuid() == 0:
        out.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
    return out


def _read_all(lab: Lab, node: str) -> str:
    return lab.read(node) if node in lab.procs else ""
