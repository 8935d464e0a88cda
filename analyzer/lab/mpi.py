"""Open MPI's side of the lab's ``mwms_mpi`` style: one real ``mpirun`` runs every rank.

The launcher does not play mpirun: it runs Open MPI's own ``mpirun`` (4.1, ``/usr/bin/mpirun``)
once for the job, three ranks on this host, each rank an app context of its own
(``mpirun [options] -np 1 -x ... python mwms_mpi.py ... : -np 1 ... : -np 1 ...``), so that a
fault meant for one rank (its arguments, its interpreter) reaches only that rank. Each rank's
script builds its TF_CONFIG from OMPI_COMM_WORLD_RANK / OMPI_COMM_WORLD_SIZE and the
``--workers`` host:port list (``tasks/mwms_mpi.py``). What mpirun prints, and when it aborts
the other ranks, is mpirun's own doing:

* **--output-filename** (a third of the runs): mpirun writes each rank's stdout and stderr
  into ``<dir>/1/rank.N/stdout`` and ``stderr`` (``1``: the job's local id), and copies them,
  untagged, to its own output too; mpirun's output and its messages (a rank that exited
  non-zero or was killed, its abort of the rest) are in ``mpirun.log``, the file the batch
  system captured (``mpirun ... > mpirun.log 2>&1``).
* **--tag-output** (another third): every rank's line behind ``[1,N]<stdout>:`` or
  ``[1,N]<stderr>:`` in mpirun's output, captured by the batch system with mpirun's own
  messages in one file, ``job-<id>.out``.
* **--tag-output --timestamp-output** (the last third): the same, each line also behind the
  time mpirun received it (``Tue Nov 24 22:06:28 2026[1,0]<stdout>:``).

mpirun's output is read from a pipe and written to the file byte for byte; with the tags, the
launcher also keeps a per-rank copy of each rank's lines (without the tag) to watch the run,
removed when the run is settled (the evidence then points at the job file's tagged lines).

The ranks are mpirun's children, not the launcher's: each rank's pid is found among mpirun's
children by its OMPI_COMM_WORLD_RANK, and its exit status (a signal, an exit code) is read
from the kernel's process events connector (``NETLINK_CONNECTOR``, ``PROC_EVENT_EXIT``; root),
so the lab's table of processes (:class:`RankProcess`, Popen-like) knows how each rank ended
without putting anything between mpirun and the rank.

The job's end by its time limit is the batch system's (SIGTERM to every process of the job,
mpirun and its ranks; SIGKILL 5 s later); a cancelled job is SIGTERM to mpirun alone. The
batch system writes no line of it here: the file holds mpirun's output only. No TensorFlow
import here.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import signal
import socket
import struct
import subprocess
import threading
import time
from pathlib import Path

from .merged import MergedOutput

MPIRUN = "/usr/bin/mpirun"
#: The output forms, a third of the cells each.
NAMINGS = ("mpi_output_filename", "mpi_tag_output", "mpi_timestamp_output")
OUTPUT_DIR = "mpi-out"  # mpirun --output-filename <dir>
LAUNCHER_FILE = "mpirun.log"  # mpirun's own output with --output-filename
RAW_DIR = ".raw"  # each rank's lines while the tagged runs go (removed when settled)
OUTPUT_FORMS = {
    "mpi_output_filename": f"mpirun --output-filename {OUTPUT_DIR} > {LAUNCHER_FILE} 2>&1 "
    f"(each rank's {OUTPUT_DIR}/1/rank.N/stdout and stderr; mpirun's messages in "
    f"{LAUNCHER_FILE})",
    "mpi_tag_output": "mpirun --tag-output > job-<id>.out 2>&1 (every rank's lines behind "
    "[1,N]<stdout>: / [1,N]<stderr>:, mpirun's messages between them)",
    "mpi_timestamp_output": "mpirun --tag-output --timestamp-output > job-<id>.out 2>&1 "
    "(the same, each line behind the time mpirun received it)",
}
FLAGS = {
    "mpi_output_filename": ["--output-filename"],  # the folder is added
    "mpi_tag_output": ["--tag-output"],
    "mpi_timestamp_output": ["--tag-output", "--timestamp-output"],
}
#: The tag mpirun puts before each piece of a rank's output it forwards (with
#: --timestamp-output behind the ctime it received it at). mpirun tags every write() a rank
#: made, not every line: Python's print() writes its text and its newline apart, so in the
#: file a rank's text is followed by the next piece's tag (maybe another rank's) and its
#: newline comes behind a tag of its own: ``[1,1]<stdout>:text[1,0]<stdout>:other`` then
#: ``[1,1]<stdout>:``. A physical line is cut at every tag; each rank's pieces of one stream
#: are joined until that stream's newline.
TAG = (
    rb"(?:[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4})?"
    rb"\[\d+,(\d+)\]<(stdout|stderr|stddiag)>:"
)
TAG_RE = re.compile(b"^" + TAG)
TAGS_RE = re.compile(TAG)


def job_id(seed: int) -> int:
    """The batch job's id (the cell's seed keeps it stable)."""
    return 730400 + seed


def job_file(job: int) -> str:
    return f"job-{job}.out"


def raw_name(node: str) -> str:
    return f"{RAW_DIR}/{node.replace(':', '-')}.log"


def rank_files(rank: int) -> list[str]:
    """What ``--output-filename`` writes for a rank (Open MPI 4.1: ``<dir>/1/rank.N/``)."""
    return [f"{OUTPUT_DIR}/1/rank.{rank}/stdout", f"{OUTPUT_DIR}/1/rank.{rank}/stderr"]


def check() -> str | None:
    """None when mpirun is there, else what is missing."""
    if Path(MPIRUN).exists():
        return None
    return f"{MPIRUN} is missing (apt-get install openmpi-bin)"


def wait_code(status: int) -> int:
    """A wait status as Popen's returncode: -N for signal N, else the exit code."""
    if status & 0x7F:
        return -(status & 0x7F)
    return (status >> 8) & 0xFF


# ----------------------------------------------------------------------------- exits
class ExitEvents:
    """Every process exit on the machine as the kernel reports it (proc connector): pid ->
    wait status, for processes (a thread group's leader), from the moment it listens."""

    NETLINK_CONNECTOR = 11
    CN_IDX_PROC = 1
    PROC_EVENT_EXIT = 0x80000000

    def __init__(self) -> None:
        self.status: dict[int, int] = {}
        self.closed = False
        s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, self.NETLINK_CONNECTOR)
        with contextlib.suppress(OSError):
            s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)  # SO_RCVBUFFORCE (root)
        s.bind((0, self.CN_IDX_PROC))
        op = struct.pack("I", 1)  # PROC_CN_MCAST_LISTEN
        cn = struct.pack("IIIIHH", self.CN_IDX_PROC, 1, 0, 0, len(op), 0) + op
        s.send(struct.pack("IHHII", 16 + len(cn), 3, 0, 0, 0) + cn)  # NLMSG_DONE
        self.sock = s
        threading.Thread(target=self._loop, daemon=True, name="proc-events").start()

    def _loop(self) -> None:
        while not self.closed:
            try:
                ready, _, _ = select.select([self.sock], [], [], 0.2)
                if not ready:
                    continue
                data = self.sock.recv(65536)
            except OSError:  # ENOBUFS after a burst of events: go on reading
                if self.closed:
                    return
                continue
            off = 0
            while off + 16 <= len(data):
                length = struct.unpack_from("I", data, off)[0]
                if length < 16:
                    break
                body = off + 16 + 20  # nlmsghdr, cn_msg
                if body + 16 <= off + length:
                    what = struct.unpack_from("I", data, body)[0]
                    if what == self.PROC_EVENT_EXIT:
                        pid, tgid, code, _sig = struct.unpack_from("IIII", data, body + 16)
                        if pid == tgid:
                            self.status[pid] = code
                off += (length + 3) & ~3

    def close(self) -> None:
        self.closed = True
        with contextlib.suppress(OSError):
            self.sock.close()


def ended_code(launcher, pid: int | None, running: bool) -> int | None:
    """A launched task's exit code (a negative signal number) from ``launcher.exits``, the
    kernel's exit events; None while it may still run (``running``: the launcher says so).
    Once the launcher ended, the last exit events get two seconds (``launcher._ended_at``);
    255 when its end was never seen (it never came up, or its exit event was lost)."""
    if pid is not None and launcher.exits is not None and pid in launcher.exits.status:
        return wait_code(launcher.exits.status[pid])
    if running:
        return None
    if launcher._ended_at is None:
        launcher._ended_at = time.monotonic()
    if time.monotonic() - launcher._ended_at < 2.0:
        return None
    if pid is not None and launcher.exits is not None and pid in launcher.exits.status:
        return wait_code(launcher.exits.status[pid])
    return 255


# ----------------------------------------------------------------------------- ranks
class LaunchedProcess:
    """A task a launcher started, as the lab's process table sees it (``poll``, ``wait``,
    ``pid``, ``returncode`` as a Popen has them): its pid as the launcher's watcher finds it,
    its end from the kernel's exit events. A launcher says how (:meth:`_found_pid`,
    :meth:`_launcher_alive`, :meth:`poll`) and what to call it (``label``)."""

    label = "task"

    def _found_pid(self) -> int | None:
        raise NotImplementedError

    def _launcher_alive(self) -> bool:
        raise NotImplementedError

    def poll(self) -> int | None:
        raise NotImplementedError

    @property
    def pid(self) -> int:
        end = time.monotonic() + 60
        while time.monotonic() < end:
            pid = self._found_pid()
            if pid is not None:
                return pid
            if not self._launcher_alive():
                break
            time.sleep(0.05)
        raise ProcessLookupError(f"{self.label} has no process")

    @property
    def returncode(self) -> int | None:
        return self.poll()

    def wait(self, timeout: float | None = None) -> int:
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            code = self.poll()
            if code is not None:
                return code
            if end is not None and time.monotonic() >= end:
                raise subprocess.TimeoutExpired(self.label, timeout)
            time.sleep(0.05)


class LauncherTask(LaunchedProcess):
    """A task of a launcher object that keeps ``pids`` (node → the pid its watcher found) and
    says whether it is ``alive()`` (honcho's Procfile process, a GNU parallel job)."""

    def __init__(self, launcher, node: str, label: str):
        self.launcher, self.node, self.label = launcher, node, label

    def _found_pid(self) -> int | None:
        return self.launcher.pids.get(self.node)

    def _launcher_alive(self) -> bool:
        return self.launcher.alive()

    def poll(self) -> int | None:
        pid = self.launcher.pids.get(self.node)
        running = (pid is not None and Path(f"/proc/{pid}").exists()) or self.launcher.alive()
        return ended_code(self.launcher, pid, running)


class DriverTask(LaunchedProcess):
    """One task a driver-run launcher started (a Spark barrier task, a Ray Train worker): the
    launcher object knows its pid (``pids``) and whether its driver lives (``driver_alive()``);
    its end is read from the launcher's exit events (:func:`ended_code`)."""

    def __init__(self, launcher, node: str):
        self.launcher, self.node = launcher, node
        self.label = node

    def _found_pid(self) -> int | None:
        return self.launcher.pids.get(self.node)

    def _launcher_alive(self) -> bool:
        return self.launcher.driver_alive()

    def poll(self) -> int | None:
        pid = self.launcher.pids.get(self.node)
        # still there (stopped, or outliving the driver), or the driver still runs
        running = (pid is not None and Path(f"/proc/{pid}").exists()) or self._launcher_alive()
        return ended_code(self.launcher, pid, running)


class RankProcess(LaunchedProcess):
    """One rank: its pid among mpirun's children."""

    def __init__(self, mpirun: Mpirun, rank: int):
        self.mpirun, self.rank = mpirun, rank
        self.label = f"rank {rank}"

    def _found_pid(self) -> int | None:
        return self.mpirun.pids.get(self.rank)

    def _launcher_alive(self) -> bool:
        return self.mpirun.popen is not None and self.mpirun.popen.poll() is None

    def poll(self) -> int | None:
        return self.mpirun.rank_code(self.rank)


class Mpirun(MergedOutput):
    """One job's mpirun: its command, its output, its ranks."""

    def __init__(self, out_dir: Path, naming: str, seed: int, nodes: list[str]):
        self.out_dir, self.naming = Path(out_dir), naming
        self.job = job_id(seed)
        self.nodes = list(nodes)  # rank order: rank i is nodes[i]
        self.tagged = naming != "mpi_output_filename"
        name = job_file(self.job) if self.tagged else LAUNCHER_FILE
        self.path = self.out_dir / name
        self.contexts: list[list[str]] = []
        self.command: list[str] = []
        self.popen: subprocess.Popen | None = None
        self.pids: dict[int, int] = {}
        self.exits: ExitEvents | None = None
        self.where: dict[str, list[int]] = {n: [] for n in self.nodes}  # raw line -> job line
        # a rank's stream's text since its last newline, and the job line where it started
        self.pending: dict[tuple[str, bytes], tuple[bytes, int | None]] = {}
        self.lines = 0
        self.signalled: list[tuple[str, int]] = []
        self._ended_at: float | None = None
        self.reader: threading.Thread | None = None

    # ------------------------------------------------------------------ command
    def add(self, node: str, python: str, script: Path, args: list[str], env: dict) -> None:
        """The app context of the next rank: ``-np 1 -x K=V ... python -u script args``."""
        if self.nodes[len(self.contexts)] != node:
            raise ValueError(f"rank {len(self.contexts)} is {self.nodes[len(self.contexts)]}")
        xs = [a for k, v in env.items() for a in ("-x", f"{k}={v}")]
        self.contexts.append(["-np", "1", *xs, python, "-u", str(script), *args])

    def node_log(self, node: str) -> Path:
        """The file the lab watches for a rank: its copy (tagged), or mpirun's stderr file."""
        if self.tagged:
            return self.out_dir / raw_name(node)
        return self.out_dir / rank_files(self.nodes.index(node))[1]

    def read(self, node: str) -> str:
        out = []
        files = self.node_files(node)
        for f in files:
            with contextlib.suppress(FileNotFoundError):
                out.append((self.out_dir / f).read_text(errors="replace"))
        return "".join(out)

    def launch(self, lab, env: dict) -> None:
        """Run mpirun (its output into the job's file) and register each rank in the lab."""
        from ._runner import Proc

        flags = list(FLAGS[self.naming])
        if not self.tagged:
            flags.append(str((self.out_dir / OUTPUT_DIR).resolve()))
        # 3 ranks on 2 cores (--oversubscribe), TensorFlow's threads not pinned to one core
        self.command = [MPIRUN, "--oversubscribe", "--bind-to", "none", *flags]
        for i, ctx in enumerate(self.contexts):
            self.command += ([":"] if i else []) + ctx
        if self.tagged:
            (self.out_dir / RAW_DIR).mkdir(parents=True, exist_ok=True)
            for n in self.nodes[: len(self.contexts)]:
                (self.out_dir / raw_name(n)).write_bytes(b"")
        self.path.write_bytes(b"")
        self.exits = ExitEvents()
        self.popen = lab.start_helper(
            self.command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=str(lab.scratch),
        )
        now = time.monotonic()
        for rank, node in enumerate(self.nodes[: len(self.contexts)]):
            lab.procs[node] = Proc(
                node,
                RankProcess(self, rank),
                self.node_log(node),
                now,
                reader=lambda n=node: self.read(n),
            )
        self.reader = threading.Thread(target=self._copy, daemon=True, name="mpirun-output")
        self.reader.start()
        lab._tees.append(self.reader)
        threading.Thread(target=self._find_ranks, daemon=True, name="mpirun-ranks").start()

    # ------------------------------------------------------------------ output
    def _output_closed(self, fd: int) -> None:
        for key in list(self.pending):  # a rank's last text without its newline
            self._end_line(key)
        self.popen.stdout.close()

    def _line(self, out, line: bytes) -> None:
        """Write one line of mpirun's output as it is; with the tags, give each rank's pieces
        of it to that rank's copy (its line ends where mpirun's newline follows its piece)."""
        out.write(line)
        self.lines += 1
        if not self.tagged:
            return
        body = line[:-1] if line.endswith(b"\n") else line
        tags = list(TAGS_RE.finditer(body))
        if not tags or tags[0].start() != 0:
            return  # mpirun's own line
        last = None
        for i, m in enumerate(tags):
            end = tags[i + 1].start() if i + 1 < len(tags) else len(body)
            if int(m.group(1)) >= len(self.nodes):
                continue
            last = (self.nodes[int(m.group(1))], m.group(2))
            text, first = self.pending.get(last, (b"", None))
            piece = body[m.end() : end]
            if first is None and piece:
                first = self.lines
            self.pending[last] = (text + piece, first)
        if line.endswith(b"\n") and last is not None:
            self._end_line(last)

    def _end_line(self, key: tuple[str, bytes]) -> None:
        node = key[0]
        text, first = self.pending.pop(key, (b"", None))
        with open(self.out_dir / raw_name(node), "ab") as f:
            f.write(text + b"\n")
        self.where[node].append(first or self.lines)

    # ------------------------------------------------------------------ ranks
    def _children(self) -> list[int]:
        pid = self.popen.pid
        out: list[int] = []
        try:
            for tid in os.listdir(f"/proc/{pid}/task"):
                with contextlib.suppress(OSError):
                    out += [
                        int(x) for x in Path(f"/proc/{pid}/task/{tid}/children").read_text().split()
                    ]
        except OSError:
            pass
        return out

    def _find_ranks(self) -> None:
        want = len(self.contexts)
        while len(self.pids) < want and self.popen.poll() is None:
            for child in self._children():
                if child in self.pids.values():
                    continue
                try:
                    env = Path(f"/proc/{child}/environ").read_bytes().split(b"\0")
                    exe = os.readlink(f"/proc/{child}/exe")
                except OSError:
                    continue
                if "python" not in os.path.basename(exe):
                    continue  # not exec'd yet
                for kv in env:
                    if kv.startswith(b"OMPI_COMM_WORLD_RANK="):
                        self.pids.setdefault(int(kv.split(b"=", 1)[1]), child)
            time.sleep(0.02)

    def rank_code(self, rank: int) -> int | None:
        # once mpirun ended, every rank ended before it
        return ended_code(
            self, self.pids.get(rank), self.popen is None or self.popen.poll() is None
        )

    # ------------------------------------------------------------------ events
    def signal_mpirun(self, sig: int, why: str) -> None:
        if self.popen is not None and self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.popen.pid, sig)
            self.signalled.append((why, sig))

    def job_event(self, event: str) -> None:
        """The batch system's side: its time limit sends SIGTERM to mpirun (the lab's
        ``_wait_end`` sends it to each rank: every process of the job); nothing is written."""
        if event == "time_limit":
            self.signal_mpirun(signal.SIGTERM, "time_limit")
        if event == "end":  # the job's processes ended: mpirun prints its last lines and exits
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(5)

    def finish(self, truth: dict) -> None:
        """Settle the run's files in ``truth``: mpirun's output is the launcher file; with the
        tags it is every rank's only file (the per-rank copies are removed) and the evidence
        points at its tagged lines; with --output-filename each rank's stdout and stderr."""
        if self.popen is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(20)
            truth["mpirun_exit_code"] = self.popen.returncode
        if self.exits is not None:
            self.exits.close()
        name = self.path.name
        truth["launcher_files"] = [name]
        truth["mpirun_command"] = " ".join(
            a if a == ":" or "/" not in a else os.path.basename(a) for a in self.command
        )
        if not self.tagged:
            return
        from ._runner import merge_into_job_file

        # (a long text may go on in later pieces: its start is on the job line)
        merge_into_job_file(
            truth, self.path, self.where, lambda _n, line, t: t[:60] in line, self.out_dir
        )
        with contextlib.suppress(OSError):
            (self.out_dir / RAW_DIR).rmdir()

    def node_files(self, node: str) -> list[str]:
        """The files of a rank before ``finish`` (the evidence is looked for in them)."""
        if self.tagged:
            return [raw_name(node)]
        return rank_files(self.nodes.index(node))
