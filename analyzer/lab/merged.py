"""A launcher that runs a job's tasks as its children and merges their output into one stream
(honcho, GNU parallel, pdsh): what the lab does the same way for each of them.

The lab reads the launcher's stream line by line as the operator's terminal or CI log would
get it (:meth:`MergedOutput._copy`, each line to :meth:`MergedOutput._line`), finds each
task's python among the launcher's descendants (:meth:`MergedOutput._find_tasks`, each told by
:meth:`MergedOutput._node_of`), and at the job's end waits for the launcher to exit on its own,
then stops it as its operator would, then SIGKILLs it (:meth:`MergedOutput._end`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from analyzer.lab._runner import descendants


class MergedOutput:
    """The parts of a launcher object that every merged-output launcher shares. A subclass
    sets ``popen`` (the launcher's process), ``path`` (its merged log), ``tasks`` and
    ``pids``, and says how a line is read (:meth:`_line`) and a process told
    (:meth:`_node_of`)."""

    popen: subprocess.Popen | None
    path: Path
    tasks: list[dict]
    pids: dict[str, int]
    killed: bool

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    # ------------------------------------------------------------------ the output
    def _output_fd(self) -> int:
        """Where the launcher's output is read from (its stdout pipe, or a pty's master)."""
        return self.popen.stdout.fileno()  # type: ignore[union-attr]

    def _open_output(self):
        """The file the stream is copied to as it comes (None: another process writes it)."""
        return open(self.path, "ab", buffering=0)

    def _output_closed(self, fd: int) -> None:
        """The stream ended (the launcher and every task holding it are gone)."""

    def _line(self, out, line: bytes) -> None:
        raise NotImplementedError

    def _copy(self) -> None:
        """Read the launcher's stream to its end, a line at a time (the last one may have no
        line end: the stream stopped mid-line)."""
        fd = self._output_fd()
        pending = b""
        out = self._open_output()
        try:
            while True:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # a pty's EIO once the launcher is gone
                    chunk = b""
                if not chunk:
                    break
                *lines, pending = (pending + chunk).split(b"\n")
                for line in lines:
                    self._line(out, line + b"\n")
            if pending:
                self._line(out, pending)
        finally:
            if out is not None:
                out.close()
            self._output_closed(fd)

    # ------------------------------------------------------------------ the tasks
    def _node_of(self, pid: int) -> str | None:
        """The task a python process among the launcher's descendants runs, or None."""
        raise NotImplementedError

    def _find_tasks(self) -> None:
        """Find each task's python among the launcher's descendants while it runs."""
        want = {t["node"] for t in self.tasks}
        while set(self.pids) < want and self.alive():
            for pid in descendants(self.popen.pid):  # type: ignore[union-attr]
                if pid in self.pids.values():
                    continue
                try:
                    exe = os.readlink(f"/proc/{pid}/exe")
                except OSError:
                    continue
                if "python" not in os.path.basename(exe):
                    continue
                node = self._node_of(pid)
                if node in want:
                    self.pids.setdefault(node, pid)
            time.sleep(0.05)

    # ------------------------------------------------------------------ the end
    def _end(self, wait: float, stop: Callable[[], None], then: float) -> None:
        """The job's end: the launcher exits on its own within ``wait`` seconds, or its
        operator stops it (``stop``) and it exits within ``then``, or it is SIGKILLed."""
        if self.popen is None:
            return
        try:
            self.popen.wait(wait)
        except subprocess.TimeoutExpired:
            stop()
            try:
                self.popen.wait(then)
            except subprocess.TimeoutExpired:
                self.killed = True
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.popen.pid, signal.SIGKILL)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.popen.wait(10)


def proc_argv(pid: int) -> list[bytes]:
    """A process's arguments (empty when it is gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return []


def argument_after(argv: list[bytes], flag: bytes) -> str | None:
    """The value after ``flag`` in ``argv`` (``--host worker0``), or None."""
    with contextlib.suppress(ValueError, IndexError):
        return argv[argv.index(flag) + 1].decode()
    return None
