"""Running cells: one cell end to end (:func:`run_cell`), the whole matrix
(:func:`run_matrix`) and the corpus table.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
import time
from pathlib import Path

from .. import compose, honcho, pdsh, runit, supervisord, systemd
from .. import parallel as gnu_parallel
from .. import tmux as tmuxlab
from .._runner import Lab, rotate, task_name, utc_now
from .cells import (
    Cell,
    cells,
)
from .faults import FAMILIES, FAULTS
from .launch import (
    PREEMPT_GRACE,
    CellError,
    _launch,
)
from .settle import _describe, _settle
from .styles import (
    STYLES,
)

K8S_TIMEOUT_NOTE = (
    " The job stopped making progress; the launcher ended it as a TFJob's "
    "activeDeadlineSeconds does (every pod deleted: SIGTERM to every task, SIGKILL 5 s "
    "later); Kubernetes writes nothing of it into the containers' logs."
)


COMPOSE_TIMEOUT_NOTE = (
    " The job stopped making progress; the launcher ended it as docker compose down "
    "--timeout 5 does (SIGTERM to every container, SIGKILL 5 s later); compose and dockerd "
    "write nothing of it into the containers' logs."
)


SYSTEMD_TIMEOUT_NOTE = (
    " The job stopped making progress; the operator stopped every unit (systemctl stop on "
    "each host: SIGTERM and SIGCONT, SIGKILL after TimeoutStopSec=5s), and systemd wrote its "
    "Stopping/Stopped lines into each host's journal."
)


SPARK_TIMEOUT_NOTE = (
    " The job stopped making progress; the launcher ended it as a workflow scheduler's "
    "timeout does: SIGTERM to spark-submit, whose shutdown hook stops the SparkContext and "
    "has the executors killed (their Python workers and TensorFlow workers go with them); "
    "the scheduler wrote no line of it."
)


RAY_TIMEOUT_NOTE = (
    " The job stopped making progress; the launcher ended it as a workflow scheduler's "
    "timeout does: SIGTERM to the Ray job's driver script, whose end has Ray end the job's "
    "actors (the Ray Train controller and its worker actors); the scheduler wrote no line "
    "of it."
)


SUPERVISORD_TIMEOUT_NOTE = (
    " The job stopped making progress; the operator stopped every program (supervisorctl "
    f"stop all: SIGTERM, SIGKILL after stopwaitsecs={supervisord.STOP_WAIT_SECS}), and "
    "supervisord wrote its stopped: lines into supervisord.log."
)


HONCHO_TIMEOUT_NOTE = (
    " The job stopped making progress; it was cancelled by SIGTERM to honcho (a terminal's "
    "Ctrl-C, a CI job's time limit), which printed 'SIGTERM received' and sent SIGTERM to every "
    "process's group (honcho's SIGKILL comes only 5 s after one of its processes stopped)."
)


HONCHO_GONE_NOTE = (
    " The job stopped making progress after honcho had exited (every process's shell had "
    "ended): the pythons that outlived it were SIGKILLed when the lab ended the run."
)


PARALLEL_TIMEOUT_NOTE = (
    " The job stopped making progress; it was cancelled by SIGTERM to GNU parallel (a CI job's "
    "time limit), which stopped every running job with its --termseq (TERM 200 ms TERM 100 ms "
    "TERM 50 ms KILL) and exited."
)


PDSH_TIMEOUT_NOTE = (
    " The job stopped making progress; the operator aborted pdsh with two Ctrl-C's at its "
    "terminal (SIGINT twice within a second): pdsh printed each host's status, sent SIGINT to "
    "every command still running and exited; what was left was SIGKILLed at the run's end."
)


RUNIT_TIMEOUT_NOTE = (
    " The job stopped making progress; the operator stopped the services still running (sv "
    f"-w {runit.STOP_WAIT} force-stop: TERM and CONT, KILL after {runit.STOP_WAIT} s), then sv "
    "exit and SIGHUP to runsvdir; runit wrote no line of it."
)


TMUX_TIMEOUT_NOTE = (
    " The job stopped making progress; the operator pressed Ctrl-C in every window whose "
    "python still ran (tmux send-keys C-c: SIGINT to the window's foreground process group), "
    f"waited {tmuxlab.STOP_WAIT} s, then ended the session with tmux kill-server (SIGHUP to every "
    "pane's shell, which hangs up its jobs); tmux wrote no line of it."
)


MPI_TIMEOUT_NOTE = (
    " The job stopped making progress; the launcher ended it as a batch system's time limit "
    "does (SIGTERM to every process of the job, mpirun and its ranks; SIGKILL 5 s later); "
    "the batch system wrote no line of it, what mpirun printed is in its output."
)


def run_cell(cell: Cell, out_dir: Path, *, timeout: float = 200.0) -> dict:
    """Record one cell into ``out_dir`` (node logs + truth.json); returns the truth dict.

    Raises :class:`CellError` when the fault did not show up as planned; the
    logs stay in ``out_dir`` without a truth.json.
    """
    from .. import _describe_code, _find_evidence, _versions

    style, fault = STYLES[cell.style], FAULTS[cell.fault]
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "truth.json").unlink(missing_ok=True)
    started = time.monotonic()
    started_utc = utc_now()
    lab = Lab(out_dir, timeout)
    run = None
    try:
        run = _launch(lab, cell, style, fault)
    finally:
        if lab.job_log is not None:
            lab.job_log("end")  # what the lab's cleanup ends is not the job's doing
        codes = lab.cleanup()
    wall = round(time.monotonic() - started, 1)
    _settle(lab, cell, style, fault, run, codes)

    node_files: dict[str, list[str]] = {
        n: [p.log_path.relative_to(out_dir).as_posix()] for n, p in lab.procs.items()
    }
    for n in cell.rotate:
        p = lab.procs[n]
        parent = p.log_path.parent.relative_to(out_dir)
        node_files[n] = [(parent / x).as_posix() for x in rotate(p.log_path)]
    if cell.naming in ("rotated", "gz"):
        for n, p in lab.procs.items():
            parent = p.log_path.parent.relative_to(out_dir)
            if cell.naming == "rotated":
                names = rotate(p.log_path)
            else:
                gz = p.log_path.with_name(p.log_path.name + ".gz")
                with gzip.GzipFile(str(gz), "wb", mtime=0) as f:
                    f.write(p.log_path.read_bytes())
                p.log_path.unlink()
                names = [gz.name]
            node_files[n] = [(parent / x).as_posix() for x in names]
    if run.mpi is not None:
        node_files = {n: run.mpi.node_files(n) for n in lab.procs}
    if run.spark is not None:
        node_files = {n: run.spark.node_files(n) for n in lab.procs}
        for n, files in node_files.items():
            if not files:
                raise CellError(f"{n}'s TensorFlow worker was never found in an executor")
    if run.ray is not None:
        node_files = {n: run.ray.node_files(n) for n in lab.procs}
        for n, files in node_files.items():
            if not files:
                raise CellError(f"{n}'s Ray worker process left no worker-*.out/.err file")
    if run.honcho is not None:
        node_files = {n: run.honcho.node_files(n) for n in lab.procs}
    if run.pdsh is not None:
        node_files = {n: run.pdsh.node_files(n) for n in lab.procs}
    if run.runit is not None:
        node_files = {n: run.runit.node_files(n) for n in lab.procs}
        for n, files in node_files.items():
            if not files:
                raise CellError(f"{n}'s service left no svlogd file")
    if run.tmux is not None:
        node_files = {n: run.tmux.node_files(n) for n in lab.procs}
        for n, files in node_files.items():
            if not files:
                raise CellError(f"{n}'s tmux window left no log")
    if run.par is not None:
        node_files = {n: run.par.node_files(n) for n in lab.procs}
        for n, files in node_files.items():
            if not files:
                raise CellError(f"{n}'s parallel job left no output file")
    if run.sup is not None:
        node_files = {n: run.sup.node_files(n) for n in lab.procs}
        for n, files in node_files.items():
            if not files:
                raise CellError(f"{n}'s program left no log file")
    for n in run.missing:
        node_files[n] = []
    evidence = _find_evidence(out_dir, node_files, [*run.expect, *cell.expect])
    if not all(e.get("file") for e in evidence):
        bad = [e["pattern"] for e in evidence if not e.get("file")]
        raise CellError(f"evidence not found: {bad}")
    versions = _versions(out_dir, node_files)
    distinct = sorted(set(versions.values()))
    ffn = run.target if run.category != "none" else None
    if run.category != "none" and lab.fault_time_utc is None:
        lab.mark_fault()
    exit_codes = {n: codes.get(n) for n in run.nodes if n in codes}
    notes = " ".join(run.notes)
    notes += " Exit codes: " + ", ".join(f"{n}={_describe_code(c)}" for n, c in exit_codes.items())
    notes += "."
    if run.missing:
        notes += " Never started (no log): " + ", ".join(run.missing) + "."
    if run.stopped and run.spark is not None:
        notes += (
            f" {', '.join(sorted(run.stopped))} stayed SIGSTOPped until the end of its Spark "
            "task or the final SIGKILL ended it."
        )
    elif run.stopped and run.ray is not None:
        notes += (
            f" {', '.join(sorted(run.stopped))} stayed SIGSTOPped until Ray ended its worker "
            "process or the final SIGKILL ended it."
        )
    elif run.stopped and run.mpi is not None:
        notes += (
            f" {', '.join(sorted(run.stopped))} stayed SIGSTOPped until mpirun's abort of the "
            "job or the final SIGKILL ended it."
        )
    elif run.stopped and run.honcho is not None:
        notes += (
            f" {', '.join(sorted(run.stopped))} stayed SIGSTOPped (honcho sends no SIGCONT) "
            f"until a SIGKILL: honcho's {honcho.KILL_WAIT} s after its SIGTERM, or the lab's "
            "end of the run."
        )
    elif run.stopped and run.par is not None:
        notes += (
            f" {', '.join(sorted(run.stopped))} stayed SIGSTOPped until parallel's --termseq "
            "(TERM, TERM, TERM, KILL) or the lab's end of the run."
        )
    elif run.stopped and run.pdsh is not None:
        notes += (
            f" {', '.join(sorted(run.stopped))} stayed SIGSTOPped (pdsh sends no SIGCONT; its "
            "abort's SIGINT stays pending) until the lab's SIGKILL at the end of the run."
        )
    elif run.stopped and run.tmux is not None:
        notes += (
            f" {', '.join(sorted(run.stopped))} stayed SIGSTOPped (its window's shell reported "
            "it Stopped and took the terminal back, so the operator's Ctrl-C reached the shell, "
            "not the python) until tmux kill-server hung up its shell, which sent its stopped "
            "job SIGHUP and SIGCONT, or the lab's SIGKILL at the end of the run."
        )
    elif run.stopped and run.runit is not None:
        notes += (
            f" {', '.join(sorted(run.stopped))} stayed SIGSTOPped until the operator's sv "
            "force-stop (TERM and CONT; KILL after 7 s)."
        )
    elif run.stopped and run.sup is not None:
        notes += (
            f" {', '.join(sorted(run.stopped))} stayed SIGSTOPped until supervisorctl stop's "
            "SIGTERM and, supervisord sending no SIGCONT, its SIGKILL after stopwaitsecs="
            f"{supervisord.STOP_WAIT_SECS}."
        )
    elif run.stopped and run.journal is not None:
        notes += (
            f" {', '.join(sorted(run.stopped))} stayed SIGSTOPped until systemctl stop sent it "
            "SIGTERM and SIGCONT."
        )
    elif run.stopped:
        notes += f" {', '.join(sorted(run.stopped))} stayed SIGSTOPped until the final SIGKILL."
    if run.ended_by == "launcher_timeout" and style.config == "k8s":
        notes += K8S_TIMEOUT_NOTE
    elif run.ended_by == "launcher_timeout" and style.config == "compose":
        notes += COMPOSE_TIMEOUT_NOTE
    elif run.ended_by == "launcher_timeout" and style.config == "systemd":
        notes += SYSTEMD_TIMEOUT_NOTE
    elif run.ended_by == "launcher_timeout" and style.config == "mpi":
        notes += MPI_TIMEOUT_NOTE
    elif run.ended_by == "launcher_timeout" and style.config == "spark":
        notes += SPARK_TIMEOUT_NOTE
    elif run.ended_by == "launcher_timeout" and style.config == "ray":
        notes += RAY_TIMEOUT_NOTE
    elif run.ended_by == "launcher_timeout" and style.config == "supervisord":
        notes += SUPERVISORD_TIMEOUT_NOTE
    elif run.ended_by == "launcher_timeout" and style.config == "honcho":
        signalled = any(w == "time_limit" for w, _ in run.honcho.signalled)
        notes += HONCHO_TIMEOUT_NOTE if signalled else HONCHO_GONE_NOTE
    elif run.ended_by == "launcher_timeout" and style.config == "parallel":
        notes += PARALLEL_TIMEOUT_NOTE
    elif run.ended_by == "launcher_timeout" and style.config == "pdsh":
        notes += PDSH_TIMEOUT_NOTE
    elif run.ended_by == "launcher_timeout" and style.config == "runit":
        notes += RUNIT_TIMEOUT_NOTE
    elif run.ended_by == "launcher_timeout" and style.config == "tmux":
        notes += TMUX_TIMEOUT_NOTE
    elif run.ended_by == "launcher_timeout":
        notes += (
            " The job stopped making progress; the launcher ended it (SIGTERM to every "
            "task, SIGKILL 5 s later) and wrote launcher.log."
        )
    launcher = ["launcher.log"] if (out_dir / "launcher.log").exists() else []
    truth = {
        "scenario": cell.folder.replace("/", "."),
        "description": _describe(cell, style, fault, run),
        "nodes": run.nodes,
        "first_failing_node": ffn,
        "task": task_name(ffn) if ffn else None,
        "root_cause_category": run.category,
        "fault_time_utc": lab.fault_time_utc if ffn else None,
        "tensorflow_version": distinct[0] if len(distinct) == 1 else ", ".join(distinct),
        "notes": notes.strip(),
        "node_files": {n: node_files.get(n, []) for n in run.nodes},
        "missing_nodes": run.missing,
        "tensorflow_versions": versions,
        "exit_codes": exit_codes,
        "evidence": evidence,
        "verified": True,
        "run_started_utc": started_utc,
        "wall_time_seconds": wall,
        "cluster": style.cluster,
        "style": cell.style,
        "fault": cell.fault,
        "family": fault.family,
        "phase": cell.phase,
        "naming": cell.naming,
        "target_role": cell.role,
        "target_node": run.target,
        "injected_category": fault.category,
        "ended_by": run.ended_by,
        "launcher_files": launcher,
        "interpreters": {n: _py_label(p) for n, p in run.python.items()},
    }
    truth.update(run.extra)
    truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.srun is not None:
        run.srun.finish(truth)
    if run.kubelet is not None:
        run.kubelet.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.dockerd is not None:
        if cell.fault == "preempt":
            truth["notes"] += (
                f" The preemption is docker stop --time {PREEMPT_GRACE:.0f} on "
                f"{compose.container_name(int(run.target.split(':')[1]))} (SIGTERM, SIGKILL "
                "after the timeout), written in no log."
            )
        run.dockerd.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.journal is not None:
        if cell.fault == "preempt":
            truth["notes"] += (
                f" The preemption is systemctl stop {systemd.unit(run.target)} on "
                f"{systemd.HOSTS[run.target]} (SIGTERM and SIGCONT, SIGKILL after "
                f"TimeoutStopSec={systemd.TIMEOUT_STOP_SEC:.0f}s); systemd's Stopping/Stopped "
                "lines are in that host's journal."
            )
        run.journal.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.mpi is not None:
        if cell.fault == "preempt":
            truth["notes"] += (
                f" The preemption is SIGTERM to {run.target}'s process (rank "
                f"{run.target.split(':')[1]}), SIGKILL after {PREEMPT_GRACE:.0f} s if it is "
                "still there; mpirun sees the rank end and aborts the job."
            )
        if cell.fault == "preempt_job":
            truth["notes"] += (
                " The scheduler cancelled the job by SIGTERM to mpirun; mpirun ended its ranks."
            )
        run.mpi.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.spark is not None:
        if cell.fault == "preempt":
            truth["notes"] += (
                f" The preemption is SIGTERM to {run.target}'s TensorFlow worker process (the "
                f"child of its barrier task's Python worker), SIGKILL after "
                f"{PREEMPT_GRACE:.0f} s if it is still there."
            )
        if cell.fault == "preempt_job":
            truth["notes"] += (
                " The scheduler cancelled the application by SIGTERM to spark-submit (client "
                "mode: the driver); its shutdown hook stopped the SparkContext."
            )
        if "right_address" in truth:  # the peer's address as its task gathered it
            spec = run.spark.tf_config(truth["peer"])
            if spec is not None:
                truth["right_address"] = spec["cluster"]["worker"][spec["task"]["index"]]
        run.spark.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.ray is not None:
        if cell.fault == "preempt":
            truth["notes"] += (
                f" The preemption is SIGTERM to {run.target}'s Ray worker process (its "
                f"RayTrainWorker actor, where its training runs), SIGKILL after "
                f"{PREEMPT_GRACE:.0f} s if it is still there."
            )
        if cell.fault == "preempt_job":
            truth["notes"] += (
                " The scheduler cancelled the job by SIGTERM to the Ray job's driver script."
            )
        if "right_address" in truth:  # the peer's address as Ray Train gave it
            spec = run.ray.tf_config(truth["peer"])
            if spec is not None:
                truth["right_address"] = spec["cluster"]["worker"][spec["task"]["index"]]
        run.ray.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.sup is not None:
        if cell.fault == "preempt":
            truth["notes"] += (
                f" The preemption is supervisorctl stop {supervisord.program(run.target)} "
                f"(SIGTERM, SIGKILL after stopwaitsecs={supervisord.STOP_WAIT_SECS}); "
                "supervisord's lines about it are in supervisord.log."
            )
        if cell.fault == "preempt_job":
            truth["notes"] += (
                " The host went down: SIGTERM to supervisord, which stopped every program "
                f"(SIGTERM, SIGKILL after stopwaitsecs={supervisord.STOP_WAIT_SECS}) and exited."
            )
        run.sup.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.honcho is not None:
        if cell.fault == "preempt":
            truth["notes"] += (
                f" The preemption is SIGTERM to {run.target}'s python (honcho's process "
                f"{run.honcho.names[run.target]}), SIGKILL after {PREEMPT_GRACE:.0f} s if it is "
                "still there; honcho sees it stop and stops the others."
            )
        if cell.fault == "preempt_job":
            truth["notes"] += (
                " The job was cancelled by SIGTERM to honcho (a terminal's Ctrl-C, a CI's "
                f"cancel): honcho stopped every process (SIGTERM, SIGKILL {honcho.KILL_WAIT} s "
                "later to one whose shell had not ended) and exited."
            )
        run.honcho.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.par is not None:
        if cell.fault == "preempt":
            truth["notes"] += (
                f" The preemption is SIGTERM to {run.target}'s python (parallel's job "
                f"'{gnu_parallel.tag(run.target).strip()}'), SIGKILL after "
                f"{PREEMPT_GRACE:.0f} s if it is still there."
            )
        if cell.fault == "preempt_job":
            truth["notes"] += (
                " The job was cancelled by SIGTERM to GNU parallel (a CI's cancel): parallel "
                "stopped every running job with its --termseq and exited."
            )
        halt = run.par.halt
        truth["notes"] += (
            " parallel ran with --halt now,fail=1 (the first failed job makes it kill the others)."
            if halt != "default"
            else " parallel ran with its default halt policy (it waits for every job)."
        )
        run.par.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.pdsh is not None:
        if cell.fault == "preempt":
            truth["notes"] += (
                f" The preemption is SIGTERM to {run.target}'s python (pdsh's host "
                f"{pdsh.host(run.target)}), SIGKILL after {PREEMPT_GRACE:.0f} s if it is still "
                "there; pdsh reports its end and stops nothing else."
            )
        if cell.fault == "preempt_job":
            truth["notes"] += (
                " The job was cancelled as a batch system cancels one: SIGTERM to every process "
                "of the job at once, pdsh (which died at once, printing nothing) and its "
                "commands' pythons."
            )
        run.pdsh.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.runit is not None:
        if cell.fault == "preempt":
            truth["notes"] += (
                f" The preemption is sv term {runit.service(run.target)} (SIGTERM to its "
                f"python), SIGKILL after {PREEMPT_GRACE:.0f} s if it is still there; the service "
                "was started by sv once, so runsv does not restart it."
            )
        if cell.fault == "preempt_job":
            truth["notes"] += (
                " The host went down as runit's stage 3 takes it down: sv -w "
                f"{runit.STOP_WAIT} force-stop of every service (TERM and CONT, KILL after "
                f"{runit.STOP_WAIT} s), then sv exit."
            )
        run.runit.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.tmux is not None:
        if cell.fault == "preempt":
            truth["notes"] += (
                f" The preemption is SIGTERM from outside to {run.target}'s python (the "
                f"foreground job of tmux window {tmuxlab.window(run.target)}), SIGKILL after "
                f"{PREEMPT_GRACE:.0f} s if it is still there."
            )
        if cell.fault == "preempt_job":
            truth["notes"] += (
                f" The job was cancelled as a whole: tmux kill-session -t {tmuxlab.SESSION} "
                "mid-training (SIGHUP to every pane's shell, which hangs up its python)"
                + (
                    ", each window saved with capture-pane just before."
                    if cell.naming == "tmux_capture"
                    else "."
                )
            )
        run.tmux.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    (out_dir / "truth.json").write_text(json.dumps(truth, indent=2) + "\n", encoding="utf-8")
    return truth


def node_log_summary(out_dir: Path, truth: dict) -> dict[str, dict]:
    """Per node: lines, step lines, and the last line of its log (what it shows at the end)."""
    from .. import _node_texts

    rx = re.compile(STYLES[truth["style"]].step_re)
    out = {}
    for node, files in truth["node_files"].items():
        if not files:
            continue
        lines = "\n".join(t for _, t in _node_texts(Path(out_dir), files)).splitlines()
        last = next((x for x in reversed(lines) if x.strip()), "")
        out[node] = {
            "lines": len(lines),
            "step_lines": sum(1 for x in lines if rx.search(x)),
            "last_line": last[:240],
        }
    return out


def _py_label(path: str) -> str:
    return "lab venv" if path == sys.executable else path


def run_matrix(
    out_root: Path,
    *,
    style: str | None = None,
    fault: str | None = None,
    limit: int | None = None,
    retries: int = 1,
    skipped_log: Path | None = Path("/tmp/lab-skipped.txt"),
    echo=print,
) -> dict[str, int]:
    """Record every selected cell that has no truth.json yet (resumable)."""
    import shutil

    out_root = Path(out_root)
    todo = [
        c
        for c in cells()
        if (style is None or c.style == style) and (fault is None or c.fault == fault)
    ]
    counts = {"recorded": 0, "present": 0, "skipped": 0}
    for c in todo:
        if limit is not None and counts["recorded"] + counts["skipped"] >= limit:
            break
        folder = out_root / c.folder
        if (folder / "truth.json").exists():
            counts["present"] += 1
            continue
        for attempt in range(retries + 1):
            shutil.rmtree(folder, ignore_errors=True)
            t0 = time.monotonic()
            try:
                truth = run_cell(c, folder)
            except Exception as exc:  # a broken cell must not stop the recording
                echo(f"{c.folder}: attempt {attempt + 1} failed: {exc}")
                if attempt == retries:
                    failed = Path("/tmp/lab-failed") / c.folder
                    shutil.rmtree(failed, ignore_errors=True)
                    failed.parent.mkdir(parents=True, exist_ok=True)
                    if folder.exists():
                        shutil.move(str(folder), str(failed))
                    counts["skipped"] += 1
                    if skipped_log:
                        with open(skipped_log, "a", encoding="utf-8") as f:
                            f.write(f"{utc_now()} {c.folder}: {exc}\n")
                continue
            echo(
                f"{c.folder}: {truth['root_cause_category']} on "
                f"{truth['first_failing_node']} ({time.monotonic() - t0:.0f} s)"
            )
            counts["recorded"] += 1
            break
    return counts


def corpus_table(root: Path) -> str:
    """A Markdown table of recorded runs per style x family under ``root``."""
    counts: dict[tuple[str, str], int] = {}
    for p in sorted(Path(root).glob("*/*/truth.json")):
        t = json.loads(p.read_text(encoding="utf-8"))
        counts[(t["style"], t["family"])] = counts.get((t["style"], t["family"]), 0) + 1
    fams = [f for f in FAMILIES if any(k[1] == f for k in counts)]
    lines = [
        "| style | " + " | ".join(fams) + " | total |",
        "|---|" + "---:|" * (len(fams) + 1),
    ]
    for s in STYLES:
        row = [counts.get((s, f), 0) for f in fams]
        lines.append(f"| {s} | " + " | ".join(map(str, row)) + f" | {sum(row)} |")
    col = [sum(counts.get((s, f), 0) for s in STYLES) for f in fams]
    lines.append("| total | " + " | ".join(map(str, col)) + f" | {sum(col)} |")
    return "\n".join(lines)
