"""honcho's side of the lab's ``mwms_honcho`` style: one real honcho runs every task.

The launcher does not play honcho: it writes a Procfile as a developer or a small deployment
would and runs honcho's own ``honcho start`` (2.0, the Python port of foreman, from its own
interpreter: :data:`ENV` or :data:`CANDIDATES`, a recording-only tool kept out of the lab venv)
for the whole job. Each task of the MultiWorkerMirroredStrategy job (``tasks/mwms_training.py``,
the custom training loop of mwms_ctl / mwms_mpi, three workers, worker 0 hosting the
coordination service) is a Procfile process:

* one line per task (:func:`procfile_text`): ``worker0: env TF_CONFIG='...' python -u
  .../mwms_training.py ...``; honcho names its processes ``worker0.1``, ``worker1.1``, ...
  (every process type gets ``.1``, honcho's ``expand_processes``);
* or, for a third of the runs (:func:`concurrent`), one process type ``worker`` run with
  ``honcho start -c worker=3``: honcho names them ``worker.1``, ``worker.2``, ``worker.3``
  (1-based) and gives each ``HONCHO_PROCESS_NAME``; the command is a small wrapper
  (``tasks/mwms_honcho.py``) that builds TF_CONFIG from that name (``worker.N`` is task N-1)
  and the ``--workers`` list, as deployments built on foreman's ``$PS`` do.

A task started late waits in its Procfile command (``sleep 15 && ...``, or the wrapper's
delay); a missing task is a Procfile without it (or ``-c worker=2``). honcho prints every
process's output merged into its own stdout, each line behind ``HH:MM:SS <name> | `` and its
own ``HH:MM:SS system | ...`` lines (``<name> started (pid=N)``, ``<name> stopped (rc=N)``,
``sending SIGTERM to <name> (pid N)``, ``SIGTERM received``), and when one process stops it
stops all the others (SIGTERM to each one's process group, SIGKILL 5 s later): that is how a
Procfile job ends, and it is kept. The run's log is honcho's output as a terminal or CI
captured it (:data:`NAMINGS`, a third of the cells each):

- ``honcho_log``: ``honcho start > honcho.log 2>&1`` (not a terminal: no colour);
- ``honcho_colour``: the same with honcho's colours, honcho's stdout a terminal (a pty whose
  output is written as it came, ``\\r\\n`` line ends and ANSI colour codes around each process's
  prefix, as ``script`` records a terminal);
- ``honcho_tee``: ``honcho.log`` as in ``honcho_log``, and each process's output also teed
  to its own file by its Procfile command (``... 2>&1 | tee logs/worker0.log``).

The tasks are honcho's grandchildren (honcho's shell runs them): each one's pid is found by
its ``HONCHO_PROCESS_NAME`` among honcho's descendants, its end read from the kernel's exit
events (:class:`analyzer.lab.mpi.ExitEvents`). Nothing of the launcher goes into the run
folder but what honcho and the tasks' tee wrote; the Procfile is kept in truth.json. No
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

from .merged import MergedOutput
from .mpi import ExitEvents, LauncherTask

ENV = "TFDIAG_LAB_HONCHO"
CANDIDATES = ("/work/honcho-venv/bin/honcho", "/tmp/honcho-venv/bin/honcho")
NAMINGS = ("honcho_log", "honcho_colour", "honcho_tee")
MAIN_LOG = "honcho.log"
PROCFILE = "Procfile"  # in the lab's scratch folder (kept in truth.json)
TEE_DIR = "logs"
RAW_DIR = "_honcho_raw"  # the lab's per-task copies while it runs (removed at the end)
WRAPPER = "mwms_honcho.py"
KILL_WAIT = 5  # honcho's manager.KILL_WAIT: SIGKILL this long after its SIGTERM
OUTPUT_FORMS = {
    "honcho_log": f"honcho start > {MAIN_LOG} 2>&1: every process's lines behind "
    "'HH:MM:SS <name> | ' and honcho's own 'HH:MM:SS system | ' lines in one file",
    "honcho_colour": f"honcho start on a terminal, captured as it came into {MAIN_LOG}: the "
    "same lines with honcho's ANSI colours around each process's prefix and \\r\\n line ends",
    "honcho_tee": f"honcho start > {MAIN_LOG} 2>&1, and each process's output also teed to "
    f"its own file by its Procfile command (... 2>&1 | tee {TEE_DIR}/<name>.log)",
}
ANSI_RE = re.compile(rb"\x1b\[[0-9;]*m")
LINE_RE = re.compile(rb"^(\d\d:\d\d:\d\d) (\S+) *\| ?(.*)$", re.S)
STOP_RE = re.compile(r"\| sending (SIG[A-Z]+) to (\S+) \(pid (\d+)\)")
RC_RE = re.compile(r"\| (\S+) stopped \(rc=(-?\d+)\)")


def find() -> str | None:
    """The honcho executable."""
    return first_existing(ENV, CANDIDATES)


def check() -> str | None:
    """None when honcho can run here, else what is missing."""
    if find() is None:
        return f"honcho is missing (a venv with pip install honcho; set {ENV} to its bin/honcho)"
    return None


def concurrent(seed: int) -> bool:
    """A third of the runs (each naming's alike): one process type run with -c worker=3."""
    return (seed // len(NAMINGS)) % 3 == 2


def process_type(node: str, concurrency: bool) -> str:
    job, index = node.split(":")
    return job if concurrency else f"{job}{index}"


def process_name(node: str, concurrency: bool) -> str:
    """honcho's name for a task: ``worker0.1`` (a line each), ``worker.1`` (-c, 1-based)."""
    job, index = node.split(":")
    if concurrency:
        return f"{job}.{int(index) + 1}"
    return f"{job}{index}.1"


def tee_file(node: str, concurrency: bool) -> str:
    """The file a task's Procfile command tees its output into (``logs/worker0.log``; with
    -c ``logs/$HONCHO_PROCESS_NAME.log``: ``logs/worker.1.log``)."""
    if concurrency:
        return f"{TEE_DIR}/{process_name(node, True)}.log"
    return f"{TEE_DIR}/{process_type(node, False)}.log"


def _env_words(env: dict) -> str:
    return " ".join(f"{k}={shlex.quote(str(v))}" for k, v in env.items())


def procfile_text(tasks: list[dict], *, concurrency: bool, tee: bool, workers: list[str]) -> str:
    """The Procfile. ``tasks``: dicts with ``node``, ``python``, ``script`` (the task program),
    ``args``, ``env`` (the task's own variables: TF_CONFIG, ...) and ``delay`` (seconds).
    With ``concurrency`` one ``worker`` line runs the wrapper for every task, each task's
    own arguments, variables and delay given to it by index (``--per-task``)."""
    if not tasks:
        return ""
    lines = ["# the training job: three MultiWorkerMirroredStrategy workers on this host"]
    if concurrency:
        t0 = tasks[0]
        wrapper = str(Path(t0["script"]).with_name(WRAPPER))
        common = list(t0["args"])  # the arguments every task has, on the command
        for t in tasks[1:]:
            k = 0
            while k < min(len(common), len(t["args"])) and common[k] == t["args"][k]:
                k += 1
            common = common[:k]
        per = {}
        for t in tasks:
            i = int(t["node"].split(":")[1])
            env = {k: v for k, v in t["env"].items() if k != "TF_CONFIG"}
            entry: dict = {"env": env}
            if t["args"][len(common) :]:
                entry["args"] = t["args"][len(common) :]
            spec = t["env"].get("TF_CONFIG")
            if spec is not None:
                spec = json.loads(spec)
                if spec["cluster"]["worker"] != workers:
                    entry["workers"] = spec["cluster"]["worker"]
                if spec["task"]["index"] != i:
                    entry["task_index"] = spec["task"]["index"]
            if t.get("delay"):
                entry["delay"] = t["delay"]
            per[str(i)] = entry
        cmd = (
            f"{t0['python']} -u {wrapper} --workers {','.join(workers)} "
            f"--per-task {shlex.quote(json.dumps(per, separators=(',', ':')))} "
            + " ".join(shlex.quote(a) for a in common)
        )
        if tee:
            cmd += f" 2>&1 | tee {TEE_DIR}/$HONCHO_PROCESS_NAME.log"
        lines.append(f"{process_type(t0['node'], True)}: {cmd}")
        return "\n".join(lines) + "\n"
    for t in tasks:
        cmd = f"env {_env_words(t['env'])} {t['python']} -u {t['script']} " + " ".join(
            shlex.quote(a) for a in t["args"]
        )
        if t.get("delay"):
            cmd = f"sleep {t['delay']:g} && {cmd}"
        if tee:
            cmd += f" 2>&1 | tee {tee_file(t['node'], False)}"
        lines.append(f"{process_type(t['node'], False)}: {cmd.strip()}")
    return "\n".join(lines) + "\n"


def command(exe: str, procfile: Path, run_dir: Path, *, concurrency: bool, n: int) -> list[str]:
    """``honcho start`` with the Procfile, the app root (the run folder: tee's relative
    files land there) and, with -c, how many workers."""
    cmd = [exe, "-f", str(procfile), "-d", str(run_dir), "start"]
    if concurrency:
        cmd += ["-c", f"worker={n}"]
    return cmd


def outlived_honcho(truth: dict, text: str, names: dict[str, str]) -> list[str]:
    """From a run's truth and honcho's output: the tasks SIGKILLed by nobody but the lab's
    end (honcho sent them no SIGKILL, the fault was no SIGKILL of theirs)."""
    out = []
    for node, code in truth.get("exit_codes", {}).items():
        if code != -9 or f"sending SIGKILL to {names[node]} " in text:
            continue
        if node == truth.get("target_node") and (
            truth.get("fault") in ("kill", "kill_old", "stall_deadline", "stall_notimeout")
            or truth.get("killed_after_grace")
        ):  # its own SIGKILL, or frozen (SIGSTOP) until the end: said elsewhere
            continue
        out.append(node)
    return out


def outlived_note(nodes: list[str]) -> str:
    if not nodes:
        return ""
    return (
        f" {', '.join(nodes)} outlived honcho's SIGTERM (TensorFlow's SIGTERM handler caught it "
        "and the python kept running); honcho sent it no SIGKILL, and it was SIGKILLed when the "
        "lab ended the run (nothing it wrote after honcho's end was kept)."
    )


def end_note(signalled: list[str], killed: bool) -> str:
    """What the lab's end of the run did to honcho itself."""
    if "end: SIGTERM" not in signalled:
        return ""
    note = (
        " honcho was still waiting on its processes 30 s after the job's end: a second SIGTERM "
        "to honcho (the lab ending the run) printed 'SIGTERM received' again"
    )
    if killed:
        note += ", and honcho, still waiting, was SIGKILLed 15 s later"
    return note + "."


def parse_line(raw: bytes) -> tuple[str, bytes] | None:
    """One line of honcho's output as (process name, the process's text); None for a line
    that is not honcho's (colours and the terminal's ``\\r`` removed)."""
    body = ANSI_RE.sub(b"", raw.rstrip(b"\n").rstrip(b"\r"))
    m = LINE_RE.match(body)
    if not m:
        return None
    return m.group(2).decode("utf-8", "replace"), m.group(3)


class Honcho(MergedOutput):
    """One job's honcho: its Procfile, its processes, its output."""

    def __init__(self, out_dir: Path, naming: str, seed: int, nodes: list[str], scratch: Path):
        self.out_dir, self.naming = Path(out_dir).resolve(), naming
        self.nodes = list(nodes)
        self.scratch = Path(scratch)
        self.concurrency = concurrent(seed)
        self.tee = naming == "honcho_tee"
        self.colour = naming == "honcho_colour"
        self.exe = find()
        self.tasks: list[dict] = []
        self.workers: list[str] = []
        self.names = {n: process_name(n, self.concurrency) for n in self.nodes}
        self.by_name = {v: k for k, v in self.names.items()}
        self.popen: subprocess.Popen | None = None
        self.pids: dict[str, int] = {}
        self.exits: ExitEvents | None = None
        self._ended_at: float | None = None
        self.path = self.out_dir / MAIN_LOG
        self.where: dict[str, list[int]] = {n: [] for n in self.nodes}
        self.lines = 0
        self.procfile = ""
        self.command: list[str] = []
        self.signalled: list[tuple[str, int]] = []
        self.reader: threading.Thread | None = None
        self._master: int | None = None
        self._done = False
        self.killed = False  # honcho itself SIGKILLed by the lab's end of the run

    # ------------------------------------------------------------------ Procfile
    def add(self, node, python, script, args, env, *, workers, delay=0.0) -> None:
        self.workers = list(workers)
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

    def write_procfile(self) -> Path:
        self.procfile = procfile_text(
            self.tasks, concurrency=self.concurrency, tee=self.tee, workers=self.workers
        )
        path = self.scratch / PROCFILE
        path.write_text(self.procfile, encoding="utf-8")
        return path

    def env(self, extra: dict) -> dict[str, str]:
        env = dict(os.environ)
        for k in ("TF_CONFIG", "PYTHONPATH", "VIRTUAL_ENV", "PORT"):
            env.pop(k, None)
        env.update(
            {
                "PYTHONUNBUFFERED": "1",
                "CUDA_VISIBLE_DEVICES": "",
                "TFDIAG_LAB_STOP_FILE": "",  # no goodbye: honcho stops the others
                "OMP_NUM_THREADS": "1",
                "TZ": "UTC",
                **extra,
            }
        )
        return env

    # ------------------------------------------------------------------ honcho
    def launch(self, lab, extra_env: dict) -> None:
        from ._runner import Proc

        procfile = self.write_procfile()
        self.command = command(
            self.exe, procfile, self.out_dir, concurrency=self.concurrency, n=len(self.tasks)
        )
        if self.tee:
            (self.out_dir / TEE_DIR).mkdir(parents=True, exist_ok=True)
        (self.out_dir / RAW_DIR).mkdir(parents=True, exist_ok=True)
        for t in self.tasks:
            (self.out_dir / RAW_DIR / f"{self.names[t['node']]}.log").write_bytes(b"")
        self.path.write_bytes(b"")
        self.exits = ExitEvents()
        env = self.env(extra_env)
        if self.colour:
            import pty

            master, slave = pty.openpty()
            self._master = master
            self.popen = lab.start_helper(
                self.command,
                stdout=slave,
                stderr=slave,
                stdin=subprocess.DEVNULL,
                env=env,
                cwd=str(self.out_dir),  # the app root: the Procfile's relative files
            )
            os.close(slave)
        else:
            self.popen = lab.start_helper(
                self.command,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                cwd=str(self.out_dir),  # the app root: the Procfile's relative files
            )
        now = time.monotonic()
        for t in self.tasks:
            node = t["node"]
            lab.procs[node] = Proc(
                node,
                LauncherTask(self, node, self.names[node]),
                Path(lab.out_dir) / self.node_files(node)[0],
                now,
                reader=lambda n=node: self.read(n),
            )
        self.reader = threading.Thread(target=self._copy, daemon=True, name="honcho-output")
        self.reader.start()
        lab._tees.append(self.reader)
        threading.Thread(target=self._find_tasks, daemon=True, name="honcho-tasks").start()

    def _output_fd(self) -> int:
        return self._master if self._master is not None else super()._output_fd()

    def _output_closed(self, fd: int) -> None:
        with contextlib.suppress(OSError):
            os.close(fd)

    def _line(self, out, line: bytes) -> None:
        out.write(line)
        self.lines += 1
        got = parse_line(line)
        if got is None:
            return
        name, text = got
        node = self.by_name.get(name)
        if node is None:
            return  # honcho's own (system) line
        with open(self.out_dir / RAW_DIR / f"{name}.log", "ab") as f:
            f.write(text + b"\n")
        self.where[node].append(self.lines)

    def _node_of(self, pid: int) -> str | None:
        try:  # honcho's name for the process, in its environment
            env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            return None
        for kv in env:
            if kv.startswith(b"HONCHO_PROCESS_NAME="):
                return self.by_name.get(kv.split(b"=", 1)[1].decode())
        return None

    def read(self, node: str) -> str:
        with contextlib.suppress(FileNotFoundError):
            name = self.node_files(node)[0] if self.tee else f"{RAW_DIR}/{self.names[node]}.log"
            return (self.out_dir / name).read_text(errors="replace")
        return ""

    def node_files(self, node: str) -> list[str]:
        """The files of a task before ``finish`` (the evidence is looked for in them)."""
        if self.tee:
            return [tee_file(node, self.concurrency)]
        return [f"{RAW_DIR}/{self.names[node]}.log"]

    # ------------------------------------------------------------------ events
    def terminate(self, why: str = "cancel") -> None:
        """SIGTERM to honcho: it prints 'SIGTERM received' and stops every process."""
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.popen.pid, signal.SIGTERM)
            self.signalled.append((why, signal.SIGTERM))

    def stopped_by_honcho(self) -> dict[str, str]:
        """The tasks honcho itself signalled (its 'sending SIGTERM to <name>' lines)."""
        out: dict[str, str] = {}
        with contextlib.suppress(FileNotFoundError):
            text = ANSI_RE.sub(b"", self.path.read_bytes()).decode("utf-8", "replace")
            for m in STOP_RE.finditer(text):
                node = self.by_name.get(m.group(2))
                if node is not None:
                    out.setdefault(node, m.group(1))
        return out

    def outlived(self, truth: dict) -> list[str]:
        """The tasks whose python outlived honcho: its shell ended on honcho's SIGTERM while
        TensorFlow's SIGTERM handler kept the python running, honcho (its processes all
        stopped) exited without a SIGKILL, and the lab's end SIGKILLed the python."""
        text = ""
        with contextlib.suppress(FileNotFoundError):
            text = ANSI_RE.sub(b"", self.path.read_bytes()).decode("utf-8", "replace")
        return outlived_honcho(truth, text, self.names)

    def job_event(self, event: str) -> None:
        """The job's time limit: SIGTERM to honcho (the terminal's Ctrl-C / the CI's
        cancel); the job's end: honcho stops the rest itself and exits."""
        if event == "time_limit":
            self.terminate("time_limit")
            return
        if event != "end" or self._done:
            return
        self._done = True
        self._end(KILL_WAIT + 25, lambda: self.terminate("end"), KILL_WAIT + 10)

    def finish(self, truth: dict) -> None:
        """honcho.log is the launcher's file; without tee it is every task's only file too
        (the lab's per-task copies removed, the evidence pointed at honcho.log's lines)."""
        if self.reader is not None:
            self.reader.join(10)
        if self.exits is not None:
            self.exits.close()
        truth["launcher_files"] = [MAIN_LOG]
        late = self.outlived(truth)
        truth["notes"] += outlived_note(late)
        signalled = [f"{w}: {signal.Signals(x).name}" for w, x in self.signalled]
        truth["notes"] += end_note(signalled, self.killed)
        stopped = self.stopped_by_honcho()
        text = ""
        with contextlib.suppress(FileNotFoundError):
            text = ANSI_RE.sub(b"", self.path.read_bytes()).decode("utf-8", "replace")
        rcs = {m.group(1): int(m.group(2)) for m in RC_RE.finditer(text)}
        truth["honcho"] = {
            "output": OUTPUT_FORMS[self.naming],
            "version": self.version(),
            "concurrency": self.concurrency,
            "command": " ".join(a if "/" not in a else os.path.basename(a) for a in self.command),
            "processes": {
                t["node"]: {
                    "name": self.names[t["node"]],
                    "pid": self.pids.get(t["node"]),
                    "signalled_by_honcho": stopped.get(t["node"]),
                    "honcho_rc": rcs.get(self.names[t["node"]]),
                    "outlived_honcho": t["node"] in late,
                }
                for t in self.tasks
            },
            "exit_code": self.popen.returncode if self.popen is not None else None,
            "signals_to_honcho": signalled,
            "honcho_sigkilled_by_lab": self.killed,
            "procfile": self.procfile,
        }
        if not self.tee:
            from ._runner import merge_into_job_file

            merge_into_job_file(
                truth, self.path, self.where, lambda _n, line, t: t[:60] in line, self.out_dir
            )
        import shutil

        shutil.rmtree(self.out_dir / RAW_DIR, ignore_errors=True)

    def version(self) -> str | None:
        with contextlib.suppress(Exception):
            r = subprocess.run([self.exe, "--version"], capture_output=True, text=True, timeout=20)
            return (r.stdout or r.stderr).strip() or None
        return None
