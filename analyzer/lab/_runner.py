"""Process management for the fault-injection lab (no TensorFlow import here)."""

from __future__ import annotations

import contextlib
import datetime as _dt
import gzip
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

TASKS_DIR = Path(__file__).resolve().parent / "tasks"


def utc_now() -> str:
    """Current time as ISO 8601 UTC with microseconds and a ``Z``."""
    now = _dt.datetime.now(_dt.UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def first_existing(env: str, candidates: tuple[str, ...] | list[str] = ()) -> str | None:
    """The executable a recording needs (an interpreter, a launcher): the path in the variable
    ``env``, else the first of ``candidates`` that exists; None when none does."""
    for c in (os.environ.get(env), *candidates):
        if c and Path(c).exists():
            return c
    return None


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (its children, theirs, ...), from /proc's parent links."""
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            stat = Path(f"/proc/{d}/stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for c in kids.get(p, []):
            out.append(c)
            todo.append(c)
    return out


def free_ports(n: int) -> list[int]:
    """``n`` distinct free TCP ports on 127.0.0.1 (bound then released)."""
    socks, ports = [], []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
            ports.append(s.getsockname()[1])
    finally:
        for s in socks:
            s.close()
    return ports


def task_name(node: str) -> str:
    job, index = node.split(":")
    return f"/job:{job}/replica:0/task:{index}"


@dataclass
class Proc:
    node: str
    popen: subprocess.Popen
    log_path: Path
    started: float
    handle: object = None
    # how to read the node's output when it is not one file (an mpirun rank's stdout and
    # stderr files): a callable returning the text
    reader: object = None


@dataclass
class Lab:
    """One scenario run: starts children, watches their logs, injects faults."""

    out_dir: Path
    timeout: float
    python: str | None = None
    procs: dict[str, Proc] = field(default_factory=dict)
    fault_time_utc: str | None = None
    deadline: float = 0.0
    stop_file: Path | None = None
    scratch: Path | None = None
    extra_pids: list[subprocess.Popen] = field(default_factory=list)
    # Where job-level events go (the launcher's time limit, a preemption): None writes them
    # to launcher.log; a style whose scheduler has its own output (Slurm) takes them there.
    job_log: object = None
    # A callable saying a task's restart is due (kubelet's restartPolicy OnFailure): the job
    # is not over while its train node waits for it.
    restarting: object = None
    # The job's own teardown ends its tasks (a Spark application stopped): a time limit
    # signals the job's launcher only, not every task.
    job_ends_tasks: bool = False
    _tees: list = field(default_factory=list)

    def __post_init__(self) -> None:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.deadline = time.monotonic() + self.timeout
        self.scratch = Path(__import__("tempfile").mkdtemp(prefix="tfdiag-lab-"))
        self.stop_file = self.scratch / "stop"

    # ------------------------------------------------------------------ time
    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def _bound(self, timeout: float) -> float:
        return max(0.0, min(timeout, self.remaining()))

    # ---------------------------------------------------------------- launch
    def start(
        self,
        node: str,
        script: str,
        log_rel: str,
        *,
        tf_config: dict | None,
        args: list[str] | None = None,
        env: dict[str, str] | None = None,
        python: str | None = None,
        log_style: str = "python",
        tee=None,
        sink=None,
        wrap: list[str] | None = None,
    ) -> Proc:
        """Start ``script`` for ``node``, its stdout and stderr into ``log_rel``; ``tee``
        (``tee(node, line)``) also gets every line the moment it is written, as a launcher
        that reads its tasks' output (srun) sees it. ``sink`` reads stdout and stderr apart,
        as a container runtime does: ``sink.line(node, data, stream, partial)`` per line (the
        stream's last bytes without a newline: ``partial``), ``sink.closed(node)`` when both
        ended. ``wrap``: a command the interpreter is run under (it must exec it)."""
        log_path = self.out_dir / log_rel
        log_path.parent.mkdir(parents=True, exist_ok=True)
        child_env = dict(os.environ)
        for k in ("TF_CONFIG", "PYTHONPATH"):
            child_env.pop(k, None)
        child_env.update(
            {
                "PYTHONUNBUFFERED": "1",
                "CUDA_VISIBLE_DEVICES": "",
                "TFDIAG_LAB_LOG_STYLE": log_style,
                "TFDIAG_LAB_STOP_FILE": str(self.stop_file),
                "OMP_NUM_THREADS": "1",
                "TZ": "UTC",
            }
        )
        if tf_config is not None:
            child_env["TF_CONFIG"] = json.dumps(tf_config)
        if env:
            child_env.update(env)
        interp = python or self.python or sys.executable
        cmd = [*(wrap or []), interp, "-u", str(TASKS_DIR / script), *(args or [])]
        fh = open(log_path, "wb", buffering=0)  # noqa: SIM115 - closed in cleanup
        popen = subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE if (tee or sink) else fh,
            stderr=subprocess.PIPE if sink else subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=child_env,
            cwd=str(self.scratch),
            start_new_session=True,
        )
        proc = Proc(node, popen, log_path, time.monotonic(), fh)
        self.procs[node] = proc
        if tee:
            import threading

            t = threading.Thread(
                target=_copy_lines, args=(popen.stdout, fh, node, tee), daemon=True
            )
            t.start()
            self._tees.append(t)
        if sink:
            import threading

            lock, left = threading.Lock(), [2]

            def done() -> None:
                with lock:
                    left[0] -= 1
                    if left[0] == 0:
                        sink.closed(node)

            for pipe, stream in ((popen.stdout, "stdout"), (popen.stderr, "stderr")):
                t = threading.Thread(
                    target=_copy_stream,
                    args=(pipe, fh, node, sink, stream, lock, done),
                    daemon=True,
                )
                t.start()
                self._tees.append(t)
        return proc

    def start_helper(self, cmd: list[str], **kw) -> subprocess.Popen:
        p = subprocess.Popen(cmd, start_new_session=True, **kw)
        self.extra_pids.append(p)
        return p

    def squat(self, port: int) -> bool:
        """Bind and listen on 127.0.0.1:``port`` from another process (a stale task holding a
        port); True once it is bound."""
        squatter = self.start_helper(
            [
                sys.executable,
                "-c",
                "import socket,time,sys\n"
                "s=socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen(16)\n"
                "print('bound', flush=True); time.sleep(600)",
                str(port),
            ],
            stdout=subprocess.PIPE,
        )
        return squatter.stdout.readline().strip() == b"bound"

    # ----------------------------------------------------------------- watch
    def read(self, node: str) -> str:
        if self.procs[node].reader is not None:
            return self.procs[node].reader()
        try:
            return self.procs[node].log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def wait_for(self, node: str, pattern: str, timeout: float = 120.0) -> re.Match | None:
        """Poll ``node``'s log until ``pattern`` matches; None on timeout/exit."""
        rx = re.compile(pattern, re.M)
        end = time.monotonic() + self._bound(timeout)
        while time.monotonic() < end:
            m = rx.search(self.read(node))
            if m:
                return m
            if self.procs[node].popen.poll() is not None:
                return rx.search(self.read(node))
            time.sleep(0.1)
        return None

    def wait_exit(self, node: str, timeout: float = 60.0) -> int | None:
        try:
            return self.procs[node].popen.wait(self._bound(timeout))
        except subprocess.TimeoutExpired:
            return None

    def wait_all(self, nodes: list[str], timeout: float = 60.0) -> dict[str, int | None]:
        end = time.monotonic() + self._bound(timeout)
        codes = {}
        for n in nodes:
            codes[n] = self.wait_exit(n, max(0.0, end - time.monotonic()))
        return codes

    # ---------------------------------------------------------------- faults
    def signal(self, node: str, sig: int, *, fault: bool = True) -> str:
        """Send ``sig`` to the node's process; records the fault time."""
        stamp = utc_now()
        os.kill(self.procs[node].popen.pid, sig)
        if fault and self.fault_time_utc is None:
            self.fault_time_utc = stamp
        return stamp

    def mark_fault(self) -> str:
        if self.fault_time_utc is None:
            self.fault_time_utc = utc_now()
        return self.fault_time_utc

    def request_stop(self) -> None:
        """Tell servers (ps/worker ``server.join()``) that the job is over."""
        self.stop_file.touch()

    # --------------------------------------------------------------- cleanup
    def cleanup(self, grace: float = 5.0) -> dict[str, int | None]:
        """Stop servers, then kill every process still alive (by PID)."""
        self.request_stop()
        end = time.monotonic() + grace
        for p in self.procs.values():
            if p.popen.poll() is None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    p.popen.wait(max(0.0, end - time.monotonic()))
        alive = [p for p in self.procs.values() if p.popen.poll() is None]
        for p in alive:  # signal all first, so no survivor logs a teardown artefact
            try:
                os.kill(p.popen.pid, signal.SIGKILL)
                os.kill(p.popen.pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        for p in alive:
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.popen.wait(10)
        for t in self._tees:  # the output the tasks wrote before they ended
            t.join(10)
        for h in self.extra_pids:
            if h.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(h.pid, signal.SIGKILL)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    h.wait(10)
        for p in self.procs.values():
            with contextlib.suppress(Exception):
                p.handle.close()
        shutil.rmtree(self.scratch, ignore_errors=True)
        return {n: p.popen.returncode for n, p in self.procs.items()}


def _copy_lines(pipe, fh, node: str, tee) -> None:
    """Copy a task's output from its pipe into its log file, and each whole line (the last
    one even without its newline) to ``tee(node, line)``."""
    pending = b""
    while True:
        chunk = os.read(pipe.fileno(), 65536)
        if not chunk:
            break
        fh.write(chunk)
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            tee(node, line + b"\n")
    if pending:
        tee(node, pending + b"\n")
    pipe.close()


def _copy_stream(pipe, fh, node: str, sink, stream: str, lock, done) -> None:
    """Copy one stream of a task into its log file (every piece as a line) and each line, the
    moment it is whole, to ``sink.line``; the stream's last bytes without a newline are passed
    as ``partial``. Both streams of a task write under one ``lock``, so the log file's lines
    are the sink's lines in the same order."""
    pending = b""
    while True:
        chunk = os.read(pipe.fileno(), 65536)
        if not chunk:
            break
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            with lock:
                fh.write(line + b"\n")
                sink.line(node, line + b"\n", stream, False)
    if pending:
        with lock:
            fh.write(pending + b"\n")
            sink.line(node, pending, stream, True)
    pipe.close()
    done()


def rotate(path: Path, pieces: int = 3) -> list[str]:
    """Split a finished log the way logrotate leaves it.

    Newest lines stay in ``path``; older in ``path.1``; oldest in ``path.2.gz``
    (for ``pieces == 3``).  Splits on line boundaries.  Returns the file names.
    """
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    n = len(lines)
    if n < pieces:
        return [path.name]
    cuts = [round(n * i / pieces) for i in range(pieces + 1)]
    chunks = [b"".join(lines[cuts[i] : cuts[i + 1]]) for i in range(pieces)]
    # chunks[0] oldest ... chunks[-1] newest
    names = []
    path.write_bytes(chunks[-1])
    names.append(path.name)
    for age in range(1, pieces):
        chunk = chunks[pieces - 1 - age]
        if age == 1:
            target = path.with_name(f"{path.name}.{age}")
            target.write_bytes(chunk)
        else:
            target = path.with_name(f"{path.name}.{age}.gz")
            with gzip.GzipFile(str(target), "wb", mtime=0) as gz:
                gz.write(chunk)
        names.append(target.name)
    return names


def merge_into_job_file(
    truth: dict, path: Path, where: dict[str, list[int]], holds, out_dir: Path
) -> None:
    """A launcher's one job file that holds every task's lines (``srun --label``, ``mpirun
    --tag-output``) becomes each task's only file in ``truth``: each evidence line is pointed at
    the job file's line that holds it (``where``: per node, the job file's line of each of its
    own lines; ``holds(node, line, text)`` says the job line holds the evidence text), and the
    per-task copies the launcher watched are removed."""
    name = path.name
    text = path.read_text(encoding="utf-8", errors="replace").splitlines()
    for ev in truth["evidence"]:
        node, no = ev["node"], ev["line_no"]
        mine = where.get(node, [])
        line = text[mine[no - 1] - 1] if no <= len(mine) else ""
        if not holds(node, line, ev["text"]):
            raise RuntimeError(f"{node}'s line {no} is not in {name}: {ev['text'][:80]!r}")
        ev["file"], ev["line_no"], ev["text"] = name, mine[no - 1], line[:400]
    for node, files in truth["node_files"].items():
        for f in files:
            (out_dir / f).unlink(missing_ok=True)
        truth["node_files"][node] = [name] if files else []
