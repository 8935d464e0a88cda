"""GNU parallel's side of the lab's ``pss_parallel`` style: one real GNU parallel runs every task.

The launcher does not play parallel: it writes the job's spec file (the cluster and each task's
own settings, ``job.json``) and runs the distribution's own ``parallel`` (GNU parallel
20221122, ``apt-get install parallel``, a recording-only tool, not a tfdiag dependency) for the
whole job, as a small deployment's job script on one host does::

    parallel -j 0 [--halt now,fail=1] <output options> \\
        'python -u .../pss_parallel.py --spec job.json --job {1} --index {2} ...' \\
        ::: chief ps ps worker worker :::+ 0 0 1 0 1

Each input line is one task of the ParameterServerStrategy job (chief + 2 ps + 2 workers;
``tasks/pss_parallel.py`` builds its TF_CONFIG from ``{1}`` / ``{2}`` and the spec's cluster,
and trains as pss_systemd.py does). ``-j 0`` runs every job at once (parallel's default, one
job per core, would leave tasks waiting). A task started late waits in the script (the spec's
``delay``); a missing task is an input line left out (its address still in the cluster).

How the job ends is parallel's: with the default halt policy parallel waits for every job (the
ps and workers serve until stopped, so the operator ends the job once the chief has exited:
SIGTERM to parallel, which stops its running jobs with its --termseq, TERM 200 ms TERM 100 ms
TERM 50 ms KILL, and exits); with ``--halt now,fail=1`` (:func:`halt`, every other run) the
first job that fails makes parallel print 'This job failed:' and kill the others the same way.
A job's time limit and a cancelled job are SIGTERM to parallel too. The run's output is
parallel's, one layout per run (:data:`NAMINGS`, a third of the cells each):

- ``par_tag``: ``parallel --tag --line-buffer ... > parallel.log 2>&1``: every line of every
  job behind its arguments and a tab (``worker 1\\t...``), parallel's own lines untagged;
- ``par_results``: ``parallel --results results/ ... > parallel.log 2>&1``: each job's stdout
  and stderr in parallel's own folders (``results/1/<job>/2/<index>/stdout``, ``stderr``,
  ``seq``), parallel's own lines in parallel.log;
- ``par_files``: ``parallel --joblog joblog.tsv --files --tmpdir outputs ... 'python ... 2>&1'
  > parallel.log 2>&1``: each job's output in its own ``outputs/parXXXXX.par`` file (parallel
  prints its name when the job ends), the joblog's line per ended job.

The tasks are parallel's children (through its shell); each one's pid is found by its
``--job``/``--index`` among parallel's descendants, its end read from the kernel's exit events
(:class:`analyzer.lab.mpi.ExitEvents`). Nothing of the launcher goes into the run folder but
what parallel and the tasks wrote; the command and the spec are kept in truth.json. No
TensorFlow import here.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import signal
import subprocess
import threading
import time
from pathlib import Path

from analyzer.lab._runner import first_existing

from .merged import MergedOutput, argument_after, proc_argv
from .mpi import ExitEvents, LauncherTask, wait_code

ENV = "TFDIAG_LAB_PARALLEL"
CANDIDATES = ("/usr/bin/parallel", "/usr/local/bin/parallel")
NAMINGS = ("par_tag", "par_results", "par_files")
MAIN_LOG = "parallel.log"
JOBLOG = "joblog.tsv"
RESULTS = "results"
OUTPUTS = "outputs"
SPEC = "job.json"  # in the lab's scratch folder (kept in truth.json)
RAW_DIR = "_parallel_raw"  # the lab's per-task copies of --tag's lines (removed at the end)
WRAPPER = "pss_parallel.py"
END_WAIT = 5.0  # the operator ends the job this long after the chief exited
OUTPUT_FORMS = {
    "par_tag": f"parallel --tag --line-buffer ... > {MAIN_LOG} 2>&1: every job's lines behind "
    "its arguments and a tab ('worker 1\\t...'), parallel's own lines untagged, in one file",
    "par_results": f"parallel --results {RESULTS}/ ... > {MAIN_LOG} 2>&1: each job's stdout "
    f"and stderr in {RESULTS}/1/<job>/2/<index>/stdout and stderr (with parallel's seq file), "
    f"parallel's own lines in {MAIN_LOG}",
    "par_files": f"parallel --joblog {JOBLOG} --files --tmpdir {OUTPUTS} '... 2>&1' > "
    f"{MAIN_LOG} 2>&1: each job's output in its own {OUTPUTS}/parXXXXX.par file (its name "
    f"printed into {MAIN_LOG} when the job ends), one joblog line per ended job",
}
HALTS = ("default", "now,fail=1")
FIRST_LINE_RE = re.compile(rb"^PARALLEL_SEQ=\d* PARALLEL_JOBSLOT=\d* job=(\w+) index=(\d+)")


def find() -> str | None:
    """The parallel executable."""
    return first_existing(ENV, CANDIDATES)


def check() -> str | None:
    """None when GNU parallel can run here, else what is missing."""
    if find() is None:
        return f"GNU parallel is missing (apt-get install parallel; or set {ENV})"
    return None


def halt(seed: int) -> str:
    """Every other run (each layout alike): --halt now,fail=1; else parallel's default."""
    return HALTS[(seed // len(NAMINGS)) % 2]


def tag(node: str) -> str:
    """--tag's prefix of a job's lines: its arguments joined by a space, then a tab."""
    job, index = node.split(":")
    return f"{job} {index}\t"


def common_args(tasks: list[dict]) -> list[str]:
    common = list(tasks[0]["args"])
    for t in tasks[1:]:
        k = 0
        while k < min(len(common), len(t["args"])) and common[k] == t["args"][k]:
            k += 1
        common = common[:k]
    return common


def command(exe: str, naming: str, halt_policy: str, tasks: list[dict], spec: Path) -> list[str]:
    """The parallel command line (run in the run folder: its relative outputs land there)."""
    t0 = tasks[0]
    wrapper = str(Path(t0["script"]).with_name(WRAPPER))
    job_cmd = (
        f"{t0['python']} -u {wrapper} --spec {spec} --job {{1}} --index {{2}} "
        + " ".join(shlex.quote(a) for a in common_args(tasks))
    ).strip()
    cmd = [exe, "--will-cite", "-j", "0"]
    if halt_policy != "default":
        cmd += ["--halt", halt_policy]
    if naming == "par_tag":
        cmd += ["--tag", "--line-buffer"]
    elif naming == "par_results":
        cmd += ["--results", f"{RESULTS}/"]
    else:
        cmd += ["--joblog", JOBLOG, "--files", "--tmpdir", OUTPUTS]
        job_cmd += " 2>&1"
    jobs = [t["node"].split(":")[0] for t in tasks]
    indexes = [t["node"].split(":")[1] for t in tasks]
    return [*cmd, job_cmd, ":::", *jobs, ":::+", *indexes]


def spec_json(tasks: list[dict], cluster: dict, default_python: str) -> dict:
    common = common_args(tasks)
    per: dict = {}
    for t in tasks:
        job, index = t["node"].split(":")
        entry: dict = {}
        env = {k: v for k, v in t["env"].items() if k != "TF_CONFIG"}
        if env:
            entry["env"] = env
        if t["args"][len(common) :]:
            entry["args"] = t["args"][len(common) :]
        tfc = t["env"].get("TF_CONFIG")
        if tfc is not None:
            tfc = json.loads(tfc)
            if tfc != {"cluster": cluster, "task": {"type": job, "index": int(index)}}:
                entry["tf_config"] = tfc
        if t.get("delay"):
            entry["delay"] = t["delay"]
        if t["python"] != default_python:
            entry["python"] = t["python"]
        per[t["node"]] = entry
    return {"cluster": cluster, "tasks": per}


class Parallel(MergedOutput):
    """One job's GNU parallel: its command, its jobs, its output."""

    def __init__(self, out_dir: Path, naming: str, seed: int, nodes: list[str], scratch: Path):
        self.out_dir, self.naming = Path(out_dir).resolve(), naming
        self.nodes = list(nodes)
        self.scratch = Path(scratch)
        self.halt = halt(seed)
        self.exe = find()
        self.tasks: list[dict] = []
        self.cluster: dict = {}
        self.popen: subprocess.Popen | None = None
        self.pids: dict[str, int] = {}
        self.exits: ExitEvents | None = None
        self._ended_at: float | None = None
        self.path = self.out_dir / MAIN_LOG
        self.where: dict[str, list[int]] = {n: [] for n in self.nodes}
        self.lines = 0
        self.spec: dict = {}
        self.command: list[str] = []
        # (why, signal, how many exits the kernel had reported when it was sent)
        self.signalled: list[tuple[str, int, int]] = []
        self.reader: threading.Thread | None = None
        self._done = False
        self.killed = False  # parallel itself SIGKILLed by the lab's end of the run

    # ------------------------------------------------------------------ the job
    def add(self, node, python, script, args, env, *, cluster, delay=0.0) -> None:
        self.cluster = {j: list(a) for j, a in cluster.items()}
        self.tasks.append(
            {
                "node": node,
                "python": python,
                "script": str(script),
                "args": list(args),
                "env": dict(env),
                "delay": delay,
            }
        )

    def env(self, extra: dict) -> dict[str, str]:
        env = dict(os.environ)
        for k in ("TF_CONFIG", "PYTHONPATH", "VIRTUAL_ENV"):
            env.pop(k, None)
        env.update(
            {
                "PYTHONUNBUFFERED": "1",
                "CUDA_VISIBLE_DEVICES": "",
                "TFDIAG_LAB_STOP_FILE": "",  # no goodbye: parallel's --termseq stops them
                "OMP_NUM_THREADS": "1",
                "TZ": "UTC",
                **extra,
            }
        )
        return env

    def launch(self, lab, extra_env: dict) -> None:
        from ._runner import Proc

        default_python = self.tasks[0]["python"]
        self.spec = spec_json(self.tasks, self.cluster, default_python)
        spec_path = self.scratch / SPEC
        spec_path.write_text(json.dumps(self.spec, indent=1), encoding="utf-8")
        self.command = command(self.exe, self.naming, self.halt, self.tasks, spec_path)
        if self.naming == "par_files":
            (self.out_dir / OUTPUTS).mkdir(parents=True, exist_ok=True)
        if self.naming == "par_tag":
            (self.out_dir / RAW_DIR).mkdir(parents=True, exist_ok=True)
            for t in self.tasks:
                (self.out_dir / RAW_DIR / self._raw(t["node"])).write_bytes(b"")
        self.path.write_bytes(b"")
        self.exits = ExitEvents()
        self.popen = lab.start_helper(
            self.command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=self.env(extra_env),
            cwd=str(self.out_dir),  # --results / --tmpdir / --joblog relative to the run folder
        )
        now = time.monotonic()
        for t in self.tasks:
            node = t["node"]
            lab.procs[node] = Proc(
                node,
                LauncherTask(self, node, f"parallel job {tag(node).strip()}"),
                Path(lab.out_dir) / MAIN_LOG,  # as the lab named the run folder
                now,
                reader=lambda n=node: self.read(n),
            )
        self.reader = threading.Thread(target=self._copy, daemon=True, name="parallel-output")
        self.reader.start()
        lab._tees.append(self.reader)
        threading.Thread(target=self._find_tasks, daemon=True, name="parallel-jobs").start()

    @staticmethod
    def _raw(node: str) -> str:
        return node.replace(":", "-") + ".log"

    def _line(self, out, line: bytes) -> None:
        out.write(line)
        self.lines += 1
        if self.naming != "par_tag":
            return
        for node in self.where:
            prefix = tag(node).encode()
            if line.startswith(prefix):
                with open(self.out_dir / RAW_DIR / self._raw(node), "ab") as f:
                    f.write(line[len(prefix) :].rstrip(b"\n") + b"\n")
                self.where[node].append(self.lines)
                return

    def _node_of(self, pid: int) -> str | None:
        argv = proc_argv(pid)  # a job's command: --job ps --index 1
        job, index = argument_after(argv, b"--job"), argument_after(argv, b"--index")
        return f"{job}:{index}" if job is not None and index is not None else None

    def _par_files(self) -> dict[str, str]:
        """--files' output files by task (the first line the job's script printed)."""
        out: dict[str, str] = {}
        folder = self.out_dir / OUTPUTS
        with contextlib.suppress(FileNotFoundError):
            for p in sorted(folder.iterdir()):
                with contextlib.suppress(OSError):
                    with open(p, "rb") as f:
                        m = FIRST_LINE_RE.match(f.read(300))
                    if m:
                        out.setdefault(f"{m.group(1).decode()}:{m.group(2).decode()}", p.name)
        return out

    def node_files(self, node: str) -> list[str]:
        """The files of a task before ``finish`` (the evidence is looked for in them)."""
        job, index = node.split(":")
        if self.naming == "par_tag":
            return [f"{RAW_DIR}/{self._raw(node)}"]
        if self.naming == "par_results":
            return [f"{RESULTS}/1/{job}/2/{index}/stdout", f"{RESULTS}/1/{job}/2/{index}/stderr"]
        name = self._par_files().get(node)
        return [f"{OUTPUTS}/{name}"] if name else []

    def read(self, node: str) -> str:
        text = []
        for name in self.node_files(node):
            with contextlib.suppress(FileNotFoundError):
                text.append((self.out_dir / name).read_text(errors="replace"))
        return "".join(text)

    # ------------------------------------------------------------------ events
    def terminate(self, why: str = "cancel") -> None:
        """SIGTERM to parallel: it stops every running job (--termseq) and exits."""
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.popen.pid, signal.SIGTERM)
            seen = len(self.exits.status) if self.exits is not None else 0
            self.signalled.append((why, signal.SIGTERM, seen))

    def job_event(self, event: str) -> None:
        """The job's time limit: SIGTERM to parallel (the CI's cancel); the job's end: once
        the chief has exited, the operator stops what parallel still runs (SIGTERM to it)."""
        if event == "time_limit":
            self.terminate("time_limit")
            return
        if event != "end" or self._done:
            return
        self._done = True
        self._end(END_WAIT, lambda: self.terminate("end"), 15)

    def stopped_by_parallel(self) -> dict[str, str]:
        """The jobs parallel itself stopped: still running when it got a SIGTERM, or, under
        --halt now,fail=1, when another job had failed (its 'This job failed:' line). The
        kernel's exit events, in the order they came, say which job ended before which."""
        order = {pid: i for i, pid in enumerate(list(self.exits.status))} if self.exits else {}
        status = dict(self.exits.status) if self.exits else {}
        ended = {n: order[p] for n, p in self.pids.items() if p in order}
        marks = [(seen, why, None) for why, _sig, seen in self.signalled]
        if self.halt != "default":
            failed = [(i, n) for n, i in ended.items() if wait_code(status[self.pids[n]]) != 0]
            if failed:
                i, first = min(failed)
                marks.append((i + 1, f"halt: {first} failed", first))
        out: dict[str, str] = {}
        for at, why, who in sorted(marks, key=lambda m: m[0]):
            for node in self.nodes:
                if node in out or node == who or node not in self.pids:
                    continue
                if ended.get(node, len(order)) >= at:
                    out[node] = why
        return out

    def finish(self, truth: dict) -> None:
        """parallel.log is the launcher's file; with --tag it is every task's only file too
        (the lab's per-task copies removed, the evidence pointed at parallel.log's lines)."""
        if self.reader is not None:
            self.reader.join(10)
        if self.exits is not None:
            self.exits.close()
        files = [MAIN_LOG]
        if self.naming == "par_files":
            files.append(JOBLOG)
            # TensorFlow's autograph writes its generated modules into $TMPDIR, which
            # parallel sets to its --tmpdir for every job: not the jobs' output, not kept
            dropped = []
            for p in sorted((self.out_dir / OUTPUTS).iterdir()):
                if p.is_file() and p.suffix != ".par":
                    p.unlink()
                    dropped.append(p.name)
            if dropped:
                truth["notes"] += (
                    f" {len(dropped)} Python files TensorFlow's autograph generated in $TMPDIR "
                    f"(parallel sets it to --tmpdir {OUTPUTS} for its jobs) were not kept."
                )
        if self.naming == "par_results":
            files += sorted(
                p.relative_to(self.out_dir).as_posix()
                for p in (self.out_dir / RESULTS).rglob("seq")
            )
        truth["launcher_files"] = files
        stopped = self.stopped_by_parallel()
        signalled = [f"{w}: {signal.Signals(x).name}" for w, x, _ in self.signalled]
        if any(w == "end" for w, _x, _ in self.signalled):
            truth["notes"] += (
                " parallel still ran the ps and worker jobs (servers) after the chief exited; "
                f"the operator ended the job {END_WAIT:.0f} s later by SIGTERM to parallel, "
                "which stopped them with its --termseq (TERM 200 ms TERM 100 ms TERM 50 ms KILL)"
                + (" and, still there, was SIGKILLed 15 s later" if self.killed else "")
                + "."
            )
        seq = {t["node"]: i + 1 for i, t in enumerate(self.tasks)}
        truth["parallel"] = {
            "output": OUTPUT_FORMS[self.naming],
            "version": self.version(),
            "halt": self.halt,
            "command": " ".join(
                os.path.basename(w) if w.startswith("/") else w
                for w in " ".join(self.command).split(" ")
            ),
            "jobs": {
                t["node"]: {
                    "seq": seq[t["node"]],
                    "pid": self.pids.get(t["node"]),
                    "stopped_by_parallel": stopped.get(t["node"]),
                }
                for t in self.tasks
            },
            "exit_code": self.popen.returncode if self.popen is not None else None,
            "signals_to_parallel": signalled,
            "parallel_sigkilled_by_lab": self.killed,
            "spec": self.spec,
        }
        if self.naming == "par_tag":
            from ._runner import merge_into_job_file

            merge_into_job_file(
                truth, self.path, self.where, lambda _n, line, t: t[:60] in line, self.out_dir
            )
            import shutil

            shutil.rmtree(self.out_dir / RAW_DIR, ignore_errors=True)

    def version(self) -> str | None:
        with contextlib.suppress(Exception):
            r = subprocess.run([self.exe, "--version"], capture_output=True, text=True, timeout=20)
            return (r.stdout or "").splitlines()[0].strip() or None
        return None
