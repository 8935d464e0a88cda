"""Slurm's side of the lab's ``mwms_slurm`` style: the launcher plays ``srun``.

It gives each task the variables ``srun`` sets (``task_env``), writes each task's output
where ``srun`` would (``output_name``: one file per task, as ``srun --output=...%j-%t.out``
writes them, or all of them in the batch script's ``slurm-<jobid>.out``, each line prefixed
with its task number as ``srun --label`` writes it, in the order the lines were written),
and writes the job-level lines Slurm itself prints, worded as Slurm's sources print them
(:class:`Srun`). No TensorFlow import here.
"""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

#: The node every task runs on (one node, three tasks: SLURM_STEP_TASKS_PER_NODE=3).
NODE = "localhost"
#: The job name (``%x``) of the ``srun_named`` output pattern.
JOB_NAME = "mwms-train"
#: srun's output forms: one file per task (two filename patterns), or one labelled file.
NAMINGS = ("srun_pertask", "srun_named", "srun_label")
OUTPUT_FORMS = {
    "srun_pertask": "srun --output=slurm-%j-%t.out (one file per task)",
    "srun_named": "srun --output=%x-%j-%t.out (one file per task)",
    "srun_label": "srun --label (every task's lines in the batch output slurm-%j.out)",
}


def job_id(seed: int) -> int:
    """A Slurm job id for the run (the cell's seed keeps it stable)."""
    return 5183200 + seed


def task_env(job: int, procid: int, ntasks: int) -> dict[str, str]:
    """The variables ``srun`` sets in a task of a one-node step of ``ntasks`` tasks (the ones
    SlurmClusterResolver reads, SLURM_PROCID / SLURM_STEP_NUM_TASKS / SLURM_STEP_NODELIST /
    SLURM_STEP_TASKS_PER_NODE, and their job-level and per-node companions)."""
    n = str(ntasks)
    return {
        "SLURM_JOB_ID": str(job),
        "SLURM_JOBID": str(job),
        "SLURM_JOB_NAME": JOB_NAME,
        "SLURM_STEP_ID": "0",
        "SLURM_STEPID": "0",
        "SLURM_PROCID": str(procid),
        "SLURM_LOCALID": str(procid),
        "SLURM_NODEID": "0",
        "SLURM_NTASKS": n,
        "SLURM_NPROCS": n,
        "SLURM_NNODES": "1",
        "SLURM_JOB_NODELIST": NODE,
        "SLURM_NODELIST": NODE,
        "SLURM_TASKS_PER_NODE": n,
        "SLURM_STEP_NUM_TASKS": n,
        "SLURM_STEP_NUM_NODES": "1",
        "SLURM_STEP_NODELIST": NODE,
        "SLURM_STEP_TASKS_PER_NODE": n,
        "SLURMD_NODENAME": NODE,
    }


def job_file(job: int) -> str:
    """The batch script's output (sbatch's default ``slurm-%j.out``): srun's and slurmstepd's
    own lines, and with ``--label`` every task's lines too."""
    return f"slurm-{job}.out"


def output_name(naming: str, job: int, task: int) -> str:
    """The file a task's output goes to while it runs (with ``srun_label`` a per-task copy the
    launcher watches; the run keeps only the labelled ``job_file``)."""
    if naming == "srun_named":
        return f"{JOB_NAME}-{job}-{task}.out"  # srun --output=%x-%j-%t.out
    return f"slurm-{job}-{task}.out"  # srun --output=slurm-%j-%t.out


class Srun:
    """srun's output and messages for one run.

    ``tee`` takes each task's lines as they are written (with ``label``: into the job file,
    prefixed ``"<task>: "``); ``watch`` reports a task that ends by a signal or a non-zero
    exit code as srun does; ``job_event("time_limit")`` writes slurmstepd's cancel line.
    """

    def __init__(self, out_dir: Path, job: int, label: bool, tasks: dict[str, int]):
        self.out_dir, self.job, self.label, self.tasks = Path(out_dir), job, label, tasks
        self.path = self.out_dir / job_file(job)
        self.lock = threading.Lock()
        self.lines = 0  # lines in the job file so far
        self.where: dict[str, list[int]] = {n: [] for n in tasks}  # task line -> job file line
        self.cancelled = False
        self.reported: set[str] = set()
        self.report_lock = threading.Lock()
        self.procs: dict = {}
        self.path.write_bytes(b"")

    def _write(self, data: bytes) -> int:
        with open(self.path, "ab") as f:
            f.write(data)
        self.lines += 1
        return self.lines

    def tee(self, node: str, line: bytes) -> None:
        if not self.label:
            return
        with self.lock:
            self.where[node].append(self._write(f"{self.tasks[node]}: ".encode() + line))

    def error(self, text: str) -> None:
        with self.lock:
            self._write(text.encode() + b"\n")

    def job_event(self, event: str) -> None:
        """A job-level event of the launcher. Only the time limit makes Slurm print a line:
        slurmstepd's ``_handle_signal_container`` (SchedMD/slurm
        src/slurmd/slurmstepd/req.c) on the batch step:
        ``error("*** %s ON %s CANCELLED AT %s DUE TO TIME LIMIT ***", entity, node_name,
        time_str)`` with ``entity`` = ``"JOB %u"``; its log prefix is ``slurmstepd: error: ``
        and ``slurm_make_time_str`` writes ``%Y-%m-%dT%H:%M:%S``. After it the step is
        cancelled, and srun reports its tasks' ends only at verbose level."""
        if event == "end":  # the tasks that ended by themselves first
            time.sleep(0.3)
            self._report()
            self.stop()
        if event != "time_limit" or self.cancelled:
            return
        self._report()
        self.cancelled = True
        now = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
        self.error(
            f"slurmstepd: error: *** JOB {self.job} ON {NODE} CANCELLED AT {now} "
            "DUE TO TIME LIMIT ***"
        )

    def exit_line(self, node: str, code: int) -> str | None:
        """srun's line for a task that ended with ``code`` (Popen's: -N for signal N), or None.

        SchedMD/slurm src/srun/launch.c ``_task_finish``: a non-zero exit is
        ``error("%s: %s %s: Exited with exit code %d", hosts, task_str, tasks, rc)``, a signal
        ``error("%s: %s %s: %s%s", hosts, task_str, tasks, strsignal(sig), core_str)`` unless
        the step was cancelled (then ``verbose``); a clean exit is ``verbose`` only. srun's
        log prefix is ``srun: error: ``."""
        task = self.tasks[node]
        if code == 0 or self.cancelled:
            return None
        if code < 0:
            what = signal.strsignal(-code) or f"Signal {-code}"
        else:
            what = f"Exited with exit code {code}"
        return f"srun: error: {NODE}: task {task}: {what}"

    def watch(self, procs: dict) -> None:
        """Report each task's end as srun does, until the step is cancelled (``procs``: node
        -> Proc, the lab's live table: a task started late joins it)."""
        self.procs = procs

        def loop() -> None:
            while not self.cancelled:
                if any(
                    p.popen.poll() is not None
                    for n, p in list(procs.items())
                    if n not in self.reported
                ):
                    time.sleep(0.3)  # its last output reaches srun first
                    self._report()
                time.sleep(0.1)

        threading.Thread(target=loop, daemon=True, name="srun-watch").start()

    def _report(self) -> None:
        with self.report_lock:
            for node, proc in list(self.procs.items()):
                code = proc.popen.poll()
                if code is not None and node not in self.reported:
                    self.reported.add(node)
                    line = self.exit_line(node, code)
                    if line:
                        self.error(line)

    def finish(self, truth: dict) -> None:
        """Settle the run's files in ``truth``: the job file is a launcher file; with
        ``label`` it is every task's only file (the per-task copies the launcher watched are
        removed) and the evidence points at its labelled lines."""
        name = self.path.name
        truth["launcher_files"] = [name]
        if not self.label:
            return
        from ._runner import merge_into_job_file

        def holds(node: str, line: str, text: str) -> bool:
            return line.startswith(f"{self.tasks[node]}: {text[:200]}")

        merge_into_job_file(truth, self.path, self.where, holds, self.out_dir)

    def stop(self) -> None:
        """The launcher ends what is left (the lab's cleanup): no more srun lines."""
        self.cancelled = True
