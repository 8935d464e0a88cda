"""systemd's side of the lab's ``pss_systemd`` style: the launcher plays systemd (PID 1),
systemd-journald and ``journalctl`` for five template units on five bare hosts.

What each part writes, read from its sources (systemd/systemd):

* **The units.** ``tf-chief.service`` on tfhost-0, ``tf-ps@0.service`` / ``tf-ps@1.service`` on
  tfhost-1 / tfhost-2, ``tf-worker@0.service`` / ``tf-worker@1.service`` on tfhost-3 /
  tfhost-4 (:data:`HOSTS`), ``Type=simple``, ``ExecStart=<venv>/bin/python3 .../pss_systemd.py``,
  ``Environment=TF_CONFIG=...`` (every task named by its host and a port), ``StandardOutput=
  journal`` (stderr inherits it: one stream), ``TimeoutStopSec=5`` (:data:`TIMEOUT_STOP_SEC`),
  ``Restart=no``, or in the ``kill_restart`` cells ``Restart=on-failure`` with ``RestartSec=2``
  (:data:`RESTART_SEC`) on every unit: an unclean exit is followed by ``<unit>: Scheduled
  restart job, restart counter is at <n>.`` (``service_enter_restart`` in
  ``src/core/service.c``) and the unit's ``Started`` line again, the new process's output in
  the same journal (whether a ``Stopped`` line comes between depends on the release, so none
  is written). Each task runs in its own UTS namespace with its host's name (``unshare
  --uts``). The stream's ``SYSLOG_IDENTIFIER`` is the ExecStart path's file name, ``python3``,
  and ``_PID`` the process's PID.
* **journald's stdout stream** (``src/journal/journald-stream.c``: ``stdout_stream_scan``,
  ``stdout_stream_line``, ``stdout_stream_log``): a line ends at ``\\n`` or at a NUL, or is cut
  at ``LineMax=`` (48K by default, :data:`LINE_MAX`); its trailing whitespace is stripped (the
  leading kept), a line left empty is dropped, and with ``SyslogLevelPrefix=`` (default on) a
  leading ``<N>`` sets the priority and is removed; the entry's time is when journald read it.
* **systemd's own lines** (SYSLOG_IDENTIFIER ``systemd``, ``_PID`` 1, ``UNIT=`` the unit, so
  ``journalctl -u`` shows them): ``Started <unit> - <description>.`` when the unit starts
  (``src/core/job.c``, the done message of a start job; the unit shown in the combined
  "<unit> - <description>" form of ``unit_status_string``; a ``Type=simple`` start job finishes
  at once, so no ``Starting ...`` line); ``Stopping <unit> - <description>...`` when a stop job
  begins and ``Stopped <unit> - <description>.`` when it is done (``job.c``,
  ``unit_status_log_starting_stopping_reloading`` in ``src/core/unit.c``); ``<unit>: Main
  process exited, code=<exited|killed|dumped>, status=<n>/<NAME>`` for an unclean exit
  (``service_sigchld_event`` in ``src/core/service.c`` through ``unit_log_process_exit`` in
  ``unit.c``; the exit-status names of ``src/basic/exit-status.c``, the signal names of
  ``signal_to_string``; a clean exit, status 0 or SIGTERM / SIGHUP / SIGINT / SIGPIPE, is only
  logged at debug level); ``<unit>: Failed with result '<exit-code|signal|core-dump|timeout>'.``
  (``unit_log_failure``) or ``<unit>: Deactivated successfully.`` (``unit_log_success``); on a
  stop that outlives ``TimeoutStopSec``: ``<unit>: State 'stop-sigterm' timed out. Killing.``
  (``service_dispatch_timer``) and ``<unit>: Killing process <pid> (<comm>) with signal
  SIGKILL.`` (the cgroup kill's log function in ``unit.c``). ``systemctl stop`` sends SIGTERM
  and then SIGCONT (``unit_kill_context``: a stopped process wakes up to die). No ``Consumed
  ... CPU time`` line (its wording changed between releases). No kernel OOM-killer line: the
  oom cell's limit is the task's own RLIMIT_AS, so TensorFlow raises ResourceExhaustedError and
  the kernel writes nothing.
* **journalctl** (``src/shared/logs-show.c``, ``output_short`` and
  ``output_timestamp_realtime``): ``<time> <_HOSTNAME> <SYSLOG_IDENTIFIER>[<_PID>]: <MESSAGE>``;
  the time is ``%b %d %H:%M:%S`` (short, the day zero-padded), with ``.%06u`` (short-precise),
  or ``%Y-%m-%dT%H:%M:%S`` and the zone as ``+00:00`` (short-iso); without ``--all`` the
  message goes through ``strip_tab_ansi`` (``src/basic/string-util.c``: TAB as 8 spaces, ANSI
  color (CSI ... m) and OSC sequences removed, trailing CRs dropped) and a message that is not
  printable UTF-8 afterwards (``utf8_is_printable``: control characters but TAB / LF, or
  invalid UTF-8) is shown as ``[<size> blob data]`` (``format_bytes``, ``src/basic/
  format-util.c``); not on a terminal, journalctl does not ellipsize. One file per host, as
  ``journalctl -u <unit> --no-pager > <file>`` leaves it (``tfhost-N/journal.log`` or
  ``tfhost-N/<unit>.log``), or for a third of the runs ONE file of every host's lines
  interleaved by time: ``journalctl -m -u 'tf-*' --no-pager`` on a journal-remote collector
  (``journal-all.log``), or a central rsyslog server's ``/var/log/syslog`` (``syslog``) in
  rsyslog's ``RSYSLOG_TraditionalFileFormat`` (``%TIMESTAMP% %HOSTNAME% %syslogtag%%msg:::sp-if-
  no-1st-sp%%msg:::drop-last-lf%``: an RFC 3164 time with the day space-padded, control
  characters escaped as ``#ooo`` by ``EscapeControlCharactersOnReceive``).

Name resolution: the host names resolve on the recording machine through an /etc/hosts line
(:data:`HOSTS_LINE`, added as root before recording; ``check_names`` says when it is missing);
a wrong-count TF_CONFIG names a host with no line (``tfhost-5``). Real hosts would each listen on
one port; here every task is on 127.0.0.1 and TensorFlow binds ``0.0.0.0:<port>``, so each task
gets its own port. Recorded runs are text and never need the line to be read back.
No TensorFlow import here.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import threading
import time
from pathlib import Path

#: The hosts of the tasks (the role mapping) and the units run on them.
HOSTS = {
    "chief:0": "tfhost-0",
    "ps:0": "tfhost-1",
    "ps:1": "tfhost-2",
    "worker:0": "tfhost-3",
    "worker:1": "tfhost-4",
}
HOSTS_LINE = "127.0.0.1 " + " ".join(HOSTS.values())
#: journald.conf's LineMax= default (48K): a longer line is cut.
LINE_MAX = 48 * 1024
#: The units' TimeoutStopSec= (systemd's default is 90 s; the lab's units set 5 s).
TIMEOUT_STOP_SEC = 5.0
#: RestartSec= of the Restart=on-failure units.
RESTART_SEC = 2.0
#: The output forms (a third of the cells short, a third short-precise / short-iso, a third one
#: merged file), rotated over the style's cells in this order.
NAMINGS = (
    "journal_short",
    "journal_precise",
    "journal_merged",
    "journal_short_unit",
    "journal_iso",
    "syslog_merged",
)
RAW_DIR = ".raw"  # the tasks' plain output while they run (removed when the run is settled)
MERGED_FILE = {"journal_merged": "journal-all.log", "syslog_merged": "syslog"}
OUTPUT_FORMS = {
    "journal_short": "per host: journalctl -u <unit> --no-pager > tfhost-N/journal.log",
    "journal_short_unit": "per host: journalctl -u <unit> --no-pager > tfhost-N/<unit>.log",
    "journal_precise": "per host: journalctl -u <unit> -o short-precise --no-pager "
    "> tfhost-N/<unit>.log",
    "journal_iso": "per host: journalctl -u <unit> -o short-iso --no-pager > tfhost-N/journal.log",
    "journal_merged": "one file: journalctl -m -u 'tf-*' --no-pager > journal-all.log "
    "(every host's journal on a systemd-journal-remote collector)",
    "syslog_merged": "one file: a central rsyslog server's /var/log/syslog "
    "(RSYSLOG_TraditionalFileFormat), every host's lines",
}
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
#: exit-status.c's names of the LIBC and LSB exit codes (others: "n/a" here).
EXIT_NAMES = {
    0: "SUCCESS",
    1: "FAILURE",
    2: "INVALIDARGUMENT",
    3: "NOTIMPLEMENTED",
    4: "NOPERMISSION",
    5: "NOTINSTALLED",
    6: "NOTCONFIGURED",
    7: "NOTRUNNING",
}
#: Signals a service's main process may die of cleanly (is_clean_exit, EXIT_CLEAN_DAEMON).
CLEAN_SIGNALS = (signal.SIGHUP, signal.SIGINT, signal.SIGTERM, signal.SIGPIPE)
#: Signals whose default action dumps core (systemd-coredump takes it: code=dumped).
CORE_SIGNALS = (
    signal.SIGABRT,
    signal.SIGSEGV,
    signal.SIGBUS,
    signal.SIGFPE,
    signal.SIGILL,
    signal.SIGQUIT,
    signal.SIGSYS,
    signal.SIGTRAP,
)


def host(job: str, index: int) -> str:
    """The host a task runs on; a task the cluster does not have gets the next free name."""
    return HOSTS.get(f"{job}:{index}") or f"tfhost-{len(HOSTS) + index - 2}"


def address(job: str, index: int, port: int) -> str:
    """A task's address in TF_CONFIG: its host's name and its port."""
    return f"{host(job, index)}:{port}"


def unit(node: str) -> str:
    job, index = node.split(":")
    return "tf-chief.service" if job == "chief" else f"tf-{job}@{index}.service"


def description(node: str) -> str:
    job, index = node.split(":")
    what = {"chief": "chief", "ps": "parameter server", "worker": "worker"}.get(job, job)
    return f"TensorFlow {what}" if job == "chief" else f"TensorFlow {what} {index}"


def check_names() -> str | None:
    """None when every host name resolves, else what is missing."""
    bad = []
    for name in HOSTS.values():
        try:
            socket.getaddrinfo(name, None)
        except OSError:
            bad.append(name)
    if not bad:
        return None
    return f"{', '.join(bad)} do not resolve; as root add to /etc/hosts: {HOSTS_LINE}"


def raw_name(node: str, run: int = 0) -> str:
    """The task's plain output while it runs (``run``: the how-many-th restart)."""
    suffix = f".{run}" if run else ""
    return f"{RAW_DIR}/{node.replace(':', '-')}{suffix}.log"


def raw_run(name: str) -> int:
    m = re.search(r"\.(\d+)\.log$", name or "")
    return int(m.group(1)) if m else 0


def exec_path(python: str) -> str:
    """The ExecStart= interpreter: the venv's ``python3`` when there is one (its file name is
    the stream's SYSLOG_IDENTIFIER and the process's comm)."""
    p = Path(python)
    three = p.with_name("python3")
    return str(three) if three.exists() else str(p)


def output_file(naming: str, node: str) -> str:
    if naming in MERGED_FILE:
        return MERGED_FILE[naming]
    h = HOSTS.get(node, node.replace(":", "-"))
    if naming in ("journal_short", "journal_iso"):
        return f"{h}/journal.log"
    return f"{h}/{unit(node)}.log"


# ----------------------------------------------------------------------------- journald
_WS = b" \t\n\r"
_LEVEL = re.compile(rb"<([0-7])>")


def stream_messages(data: bytes, line_max: int = LINE_MAX) -> list[bytes]:
    """The MESSAGE= fields journald's stdout stream makes of what a process wrote (one line
    with its newline, or its last bytes): cut at NUL and at ``line_max``; trailing whitespace
    stripped unless the line is all whitespace; empty lines dropped; a ``<N>`` level prefix
    removed."""
    if data.endswith(b"\n"):
        data = data[:-1]
    pieces: list[bytes] = []
    for part in data.split(b"\0"):
        while len(part) > line_max:
            pieces.append(part[:line_max])
            part = part[line_max:]
        pieces.append(part)
    out = []
    for p in pieces:
        if p.strip(_WS):
            p = p.rstrip(_WS)
        m = _LEVEL.match(p)
        if m:
            p = p[m.end() :]
        if p:
            out.append(p)
    return out


# ----------------------------------------------------------------------------- journalctl
def format_bytes(t: int) -> str:
    """systemd's ``FORMAT_BYTES`` (IEC, one digit below the point, trailing B)."""
    table = [(s, 1024 ** (6 - i)) for i, s in enumerate("EPTGMK")]
    for i, (suffix, factor) in enumerate(table):
        if t >= factor:
            if i != len(table) - 1:
                below = (t // table[i + 1][1] * 10 // table[-1][1]) % 10
            else:
                below = (t * 10 // factor) % 10
            return f"{t // factor}.{below}{suffix}"
    return f"{t}B"


_CSI_COLOR = re.compile(rb"\x1b\[[0-9;:]*m")
_OSC = re.compile(rb"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


def strip_tab_ansi(msg: bytes) -> bytes:
    """``strip_tab_ansi``: TABs as 8 spaces, ANSI color and OSC sequences removed, trailing CRs
    dropped."""
    msg = _OSC.sub(b"", _CSI_COLOR.sub(b"", msg)).replace(b"\t", b" " * 8)
    return msg.rstrip(b"\r")


def printable(msg: bytes) -> bool:
    """``utf8_is_printable``: valid UTF-8 without control characters (TAB and LF allowed)."""
    try:
        text = msg.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return not any((ord(c) < 0x20 and c not in "\t\n") or 0x7F <= ord(c) <= 0x9F for c in text)


def short_message(msg: bytes) -> str:
    """What journalctl's short outputs print of a MESSAGE= (no ``--all``)."""
    msg = strip_tab_ansi(msg)
    if not printable(msg):
        return f"[{format_bytes(len(msg))} blob data]"
    return msg.decode("utf-8")


def timestamp(mode: str, us: int) -> str:
    """The realtime stamp of ``output_timestamp_realtime`` in UTC (the hosts' zone)."""
    secs, frac = divmod(us, 1_000_000)
    tm = time.gmtime(secs)
    if mode == "short-iso":
        return time.strftime("%Y-%m-%dT%H:%M:%S", tm) + "+00:00"
    base = f"{MONTHS[tm.tm_mon - 1]} {tm.tm_mday:02d} " + time.strftime("%H:%M:%S", tm)
    if mode == "short-precise":
        return f"{base}.{frac:06d}"
    return base


def journal_line(mode: str, us: int, hostname: str, ident: str, pid: int, msg: bytes) -> str:
    """One line of ``journalctl -o <mode>`` (short, short-precise, short-iso)."""
    return f"{timestamp(mode, us)} {hostname} {ident}[{pid}]: {short_message(msg)}"


def rsyslog_escape(msg: bytes) -> str:
    """rsyslog's EscapeControlCharactersOnReceive: a control character as ``#`` and three
    octal digits (TAB too, by default)."""
    text = msg.decode("utf-8", errors="replace")
    return "".join(f"#{ord(c):03o}" if ord(c) < 0x20 or ord(c) == 0x7F else c for c in text)


def syslog_line(us: int, hostname: str, ident: str, pid: int, msg: bytes) -> str:
    """One line of RSYSLOG_TraditionalFileFormat (RFC 3164 time, the day space-padded)."""
    tm = time.gmtime(us // 1_000_000)
    stamp = f"{MONTHS[tm.tm_mon - 1]} {tm.tm_mday:2d} " + time.strftime("%H:%M:%S", tm)
    text = rsyslog_escape(msg)
    return f"{stamp} {hostname} {ident}[{pid}]:{'' if text.startswith(' ') else ' '}{text}"


MODES = {
    "journal_short": "short",
    "journal_short_unit": "short",
    "journal_precise": "short-precise",
    "journal_iso": "short-iso",
    "journal_merged": "short",
}


def render(naming: str, entries: list[dict]) -> dict[str, list[tuple[str, dict]]]:
    """The files of a naming: file -> [(line, entry)], every file's entries in time order
    (a merged file interleaves the hosts' journals by time, as ``journalctl -m`` does)."""
    files: dict[str, list[tuple[str, dict]]] = {}
    for e in sorted(entries, key=lambda e: (e["us"], e["seq"])):
        name = output_file(naming, e["node"])
        if naming == "syslog_merged":
            line = syslog_line(e["us"], e["host"], e["ident"], e["pid"], e["msg"])
        else:
            line = journal_line(MODES[naming], e["us"], e["host"], e["ident"], e["pid"], e["msg"])
        files.setdefault(name, []).append((line, e))
    return files


# ----------------------------------------------------------------------------- the daemons
def _status(code: int) -> tuple[str, str, str]:
    """(code=, status=, result) of systemd's lines for a main process that ended unclean."""
    if code > 0:
        return "exited", f"{code}/{EXIT_NAMES.get(code, 'n/a')}", "exit-code"
    sig = signal.Signals(-code)
    name = sig.name[3:]
    if sig in CORE_SIGNALS:
        return "dumped", f"{-code}/{name}", "core-dump"
    return "killed", f"{-code}/{name}", "signal"


def clean_exit(code: int) -> bool:
    return code == 0 or (code < 0 and -code in CLEAN_SIGNALS)


class Journald:
    """systemd's and journald's side of one run.

    ``unit_started(node, exec_path)`` as systemd starts a unit; ``tee(node, line)`` takes each
    line the task writes, the moment it is written; ``watch(procs)`` follows the main processes
    and writes systemd's lines when they end; ``stop(node)`` is ``systemctl stop``;
    ``job_event`` takes the launcher's time limit (every unit stopped) and the end of the job
    (the units still running stopped); ``finish(truth)`` writes the files journalctl / rsyslog
    leave and points the evidence at them.
    """

    def __init__(self, out_dir: Path, naming: str, nodes: list[str], restart: bool = False):
        self.out_dir, self.naming = Path(out_dir), naming
        self.nodes = list(nodes)
        self.restart = restart  # Restart=on-failure on every unit
        self.restarter = None  # starts a node's unit again (the lab's start)
        self.restarts = {n: 0 for n in nodes}
        self.first_exit: dict[str, int] = {}
        self.pending: set[str] = set()  # restarts scheduled, not yet started
        self.no_more = threading.Event()  # the job is being ended: no restart
        self.lock = threading.RLock()
        self.entries: list[dict] = []
        self.seq = 0
        self.raw_lines = {n: 0 for n in nodes}
        self.ident: dict[str, str] = {}
        self.procs: dict = {}
        self.stopping: set[str] = set()
        self.timed_out: set[str] = set()
        self.operator_stopped: set[str] = set()  # stopped by the operator at the job's end
        self.handled: set[int] = set()
        self.threads: list[threading.Thread] = []
        self.events: list[dict] = []
        self.over = threading.Event()
        self.watcher: threading.Thread | None = None

    # journald
    def _add(self, node: str, ident: str, pid: int, msg: bytes, raw: tuple | None) -> None:
        with self.lock:
            self.seq += 1
            self.entries.append(
                {
                    "us": time.time_ns() // 1000,
                    "seq": self.seq,
                    "node": node,
                    "host": HOSTS.get(node, node),
                    "ident": ident,
                    "pid": pid,
                    "msg": msg,
                    "raw": raw,
                }
            )

    def systemd(self, node: str, text: str) -> None:
        """A line of PID 1 about ``node``'s unit."""
        self._add(node, "systemd", 1, text.encode(), None)

    def unit_started(self, node: str, exec_start: str) -> None:
        self.ident[node] = Path(exec_start).name
        self.systemd(node, f"Started {unit(node)} - {description(node)}.")

    def tee(self, node: str, line: bytes) -> None:
        with self.lock:
            raw = (self.restarts[node], self.raw_lines[node])
            self.raw_lines[node] += 1
            proc = self.procs.get(node)
            pid = proc.popen.pid if proc else 0
            for msg in stream_messages(line):
                self._add(node, self.ident.get(node, "python3"), pid, msg, raw)

    # PID 1
    def watch(self, procs: dict) -> None:
        self.procs = procs

        def loop() -> None:
            while True:
                done = self.over.is_set()
                for node, proc in list(procs.items()):
                    code = proc.popen.poll()
                    if code is None or proc.popen.pid in self.handled:
                        continue
                    self.handled.add(proc.popen.pid)
                    self._exited(node, code)
                if done:
                    return
                time.sleep(0.05)

        self.watcher = threading.Thread(target=loop, daemon=True, name="systemd-pid1")
        self.watcher.start()

    def _exited(self, node: str, code: int) -> None:
        u = unit(node)
        with self.lock:
            if clean_exit(code) and node not in self.timed_out:
                self.systemd(node, f"{u}: Deactivated successfully.")
            else:
                kind, status, result = _status(code)
                if node in self.timed_out:
                    result = "timeout"
                self.systemd(node, f"{u}: Main process exited, code={kind}, status={status}")
                self.systemd(node, f"{u}: Failed with result '{result}'.")
            if node in self.stopping:
                self.systemd(node, f"Stopped {u} - {description(node)}.")
            elif self.restart and not clean_exit(code):
                self.first_exit.setdefault(node, code)
                if not self.no_more.is_set():
                    self.pending.add(node)
                    t = threading.Thread(target=self._restart, args=(node,), daemon=True)
                    t.start()

    def restart_due(self) -> bool:
        """A unit's restart is scheduled (the job is not over)."""
        return bool(self.pending) and not self.no_more.is_set()

    def _restart(self, node: str) -> None:
        try:
            time.sleep(RESTART_SEC)
            with self.lock:
                if self.no_more.is_set() or self.restarter is None:
                    return
                self.restarts[node] += 1
                self.raw_lines[node] = 0
                n = self.restarts[node]
                self.systemd(
                    node, f"{unit(node)}: Scheduled restart job, restart counter is at {n}."
                )
                self.events.append({"event": "restart", "unit": unit(node), "n": n, "utc": _utc()})
            self.restarter(node, raw_name(node, n))
        finally:
            self.pending.discard(node)

    def stop(self, node: str, *, by_operator: bool = True) -> threading.Thread | None:
        """``systemctl stop <unit>``: SIGTERM and SIGCONT to the main process, SIGKILL after
        TimeoutStopSec. Returns the thread that waits for it (None if nothing to stop)."""
        proc = self.procs.get(node)
        with self.lock:
            if proc is None or node in self.stopping or proc.popen.poll() is not None:
                return None
            self.stopping.add(node)
            if by_operator:
                self.operator_stopped.add(node)
            self.systemd(node, f"Stopping {unit(node)} - {description(node)}...")
            for sig in (signal.SIGTERM, signal.SIGCONT):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(proc.popen.pid, sig)

        def wait() -> None:
            p = proc.popen
            with contextlib.suppress(Exception):
                p.wait(TIMEOUT_STOP_SEC)
            if p.poll() is None:
                with self.lock:
                    self.timed_out.add(node)
                    self.systemd(node, f"{unit(node)}: State 'stop-sigterm' timed out. Killing.")
                    comm = Path(self.ident.get(node, "python3")).name[:15]
                    self.systemd(
                        node,
                        f"{unit(node)}: Killing process {p.pid} ({comm}) with signal SIGKILL.",
                    )
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(p.pid, signal.SIGKILL)
                with contextlib.suppress(Exception):
                    p.wait(10)

        t = threading.Thread(target=wait, daemon=True, name=f"stop-{node}")
        t.start()
        self.threads.append(t)
        return t

    def job_event(self, event: str) -> None:
        """The launcher's time limit: the operator stops every unit; the job's end: the units
        still running are stopped (the chief finished or failed) and their ends written."""
        if event in ("time_limit", "end"):
            self.no_more.set()
        if event == "time_limit":
            self.events.append({"event": event, "utc": _utc()})
            for node in list(self.procs):
                self.stop(node)
            return
        if event != "end":
            return
        for node in list(self.procs):
            self.stop(node)
        for t in list(self.threads):
            t.join(TIMEOUT_STOP_SEC + 15)
        end = time.monotonic() + 10
        while time.monotonic() < end:
            if all(p.popen.poll() is not None for p in self.procs.values()):
                break
            time.sleep(0.05)
        self.over.set()
        if self.watcher is not None:
            self.watcher.join(5)

    # journalctl
    def finish(self, truth: dict) -> None:
        """Write the files; the tasks' plain copies go; node files and evidence point at the
        journal's files."""
        out = self.out_dir
        files = render(self.naming, self.entries)
        where: dict[tuple[str, int], tuple[str, int]] = {}
        for name, lines in files.items():
            path = out / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(x + "\n" for x, _ in lines), encoding="utf-8")
            for no, (_, e) in enumerate(lines, 1):
                if e["raw"] is not None:
                    where.setdefault((e["node"], *e["raw"]), (name, no))
        for ev in truth["evidence"]:
            node, no = ev["node"], ev["line_no"]
            run = raw_run(ev.get("file") or "")
            name, at = where.get((node, run, no - 1), (output_file(self.naming, node), 0))
            want = ev["text"][:100].strip()
            text = (out / name).read_text(encoding="utf-8").splitlines()
            if not at or want not in text[at - 1]:
                host_ = HOSTS.get(node, "")
                at = next((i for i, x in enumerate(text, 1) if f" {host_} " in x and want in x), 0)
            if not at:
                raise RuntimeError(f"{node}'s line {no} is not in {name}: {want[:80]!r}")
            ev["file"], ev["line_no"], ev["text"] = name, at, text[at - 1][:400]
        for node, node_files in truth["node_files"].items():
            truth["node_files"][node] = [output_file(self.naming, node)] if node_files else []
        shutil.rmtree(out / RAW_DIR, ignore_errors=True)
        truth["launcher_files"] = []
        codes = truth.get("exit_codes", {})
        for n, k in self.restarts.items():
            if k:
                truth["notes"] += (
                    f" Restart=on-failure: systemd restarted {unit(n)} on {HOSTS[n]} {k} time"
                    f"{'s' if k > 1 else ''} (first exit {self.first_exit.get(n)}); the new "
                    "process's lines follow in the same journal."
                )
        stopped = sorted(self.operator_stopped)
        if stopped:
            truth["notes"] += (
                " The operator stopped the units still running (systemctl stop: SIGTERM and "
                f"SIGCONT, SIGKILL after TimeoutStopSec={TIMEOUT_STOP_SEC:.0f}s): "
                + ", ".join(f"{unit(n)} on {HOSTS[n]}" for n in stopped)
                + "; systemd wrote its Stopping/Stopped lines into their journals."
            )
        truth["systemd"] = {
            "output": OUTPUT_FORMS[self.naming],
            "units": {
                n: {
                    "unit": unit(n),
                    "description": description(n),
                    "host": HOSTS[n],
                    "syslog_identifier": self.ident.get(n),
                    "pid": self.procs[n].popen.pid if n in self.procs else None,
                    "exit_code": codes.get(n),
                    "stopped_by": "systemctl stop" if n in self.stopping else None,
                    "stop_timed_out": n in self.timed_out,
                }
                for n in truth["nodes"]
            },
            "unit_settings": "Type=simple, StandardOutput=journal, StandardError=inherit, "
            f"TimeoutStopSec={TIMEOUT_STOP_SEC:.0f}s, "
            + (
                f"Restart=on-failure, RestartSec={RESTART_SEC:.0f}s"
                if self.restart
                else "Restart=no"
            ),
            "restarts": {unit(n): k for n, k in self.restarts.items() if k},
            "kernel_oom_lines": "none (the oom cell's limit is the task's RLIMIT_AS)",
            "job_events": self.events,
            "hosts_line": HOSTS_LINE,
        }


def _utc() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
