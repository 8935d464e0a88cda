"""runit's side of the lab's ``mwms_runit`` style: one real runit runs every task as a service.

The launcher does not play runit: it writes the service directories an operator of a bare host
writes and runs the distribution's own runit (2.1.2, ``apt-get install runit``, a
recording-only tool, not a tfdiag dependency): one ``runsvdir`` on a private service directory
(it needs not be PID 1), which starts one ``runsv`` per service, which runs the service's
``run`` and, through a pipe, its ``log/run``. Each task of the MultiWorkerMirroredStrategy job
(``tasks/mwms_training.py``, the custom training loop of mwms_ctl / mwms_pdsh, unchanged; three
workers, worker 0 hosting the coordination service) is one service ``tf-worker-N``
(:func:`service`):

- ``run``: ``#!/bin/sh``, ``exec 2>&1``, ``cd`` to the job's directory, ``export TF_CONFIG=...``
  (and the task's other variables), ``exec python -u mwms_training.py ...``;
- ``log/run``: ``exec svlogd <flags> <run>/var/log/tf-worker-N``: runit's own logger
  timestamps every line and writes ``current`` (rotated into ``@<tai64n>.s`` files);
- ``down``: the service is not started when runsv comes up. A batch job is not a daemon: the
  operator starts each task with ``sv once`` (start it, do not restart it when it stops), so a
  task that exits, fails or is killed stays down (runit restarts a service that is "up").

The operator speaks to runit with ``sv``: ``sv once`` starts a task (a task started late is a
later ``sv once``); a preemption is ``sv term tf-worker-N`` (SIGTERM to the task's python,
which is runsv's child; the lab's SIGKILL after its grace if it is still there); the job's time
limit and the operator's end of a job that outlived its training are ``sv -w 7 force-stop``
of the services still running (TERM and CONT, KILL after 7 s); a job cancelled as a whole
(preempt_job) is the host going down as runit's stage 3 takes it down: ``sv -w 7 force-stop``
of every service, then ``sv exit``. At the end ``sv exit`` makes each runsv (and its svlogd)
exit and SIGHUP ends runsvdir. A missing task is a service the operator did not write (its
address still in the cluster).

runit itself writes no line about its services: each service's log directory holds only what
its program wrote, each line behind svlogd's timestamp. The run's log folder is what an
operator collects of /var/log: each service's svlogd directory, ``var/log/tf-worker-N/current``
and its rotated ``@<tai64n>.s`` pieces (svlogd's ``lock`` and the operator's ``config`` are not
logs and are left out). One layout per run (:data:`NAMINGS`, a third of the cells each):

- ``runit_tt``: ``svlogd -tt``: ``YYYY-MM-DD_HH:MM:SS.xxxxx`` UTC stamps, no rotation;
- ``runit_tai``: ``svlogd -t``: TAI64N stamps (``@4000000069...``), no rotation;
- ``runit_rotate``: ``svlogd -tt`` (or ``-ttt``, ``YYYY-MM-DDTHH:MM:SS.xxxxx``, every other
  run) with ``s4096`` and ``n20`` in the log directory's ``config``: svlogd rotates ``current``
  into several ``@<tai64n>.s`` files.

The tasks are runsv's children: each one's pid is found among runsvdir's descendants (a python
whose parent is ``runsv tf-worker-N``), its end read from the kernel's exit events
(:class:`analyzer.lab.mpi.ExitEvents`). The services' ``run`` scripts and sv's calls are kept
in truth.json. No TensorFlow import here.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import subprocess
import threading
import time
from pathlib import Path

from analyzer.lab._runner import descendants, first_existing

from .mpi import ExitEvents, LauncherTask

ENV = "TFDIAG_LAB_RUNSVDIR"
CANDIDATES = ("/usr/bin/runsvdir", "/usr/sbin/runsvdir", "/sbin/runsvdir")
NAMINGS = ("runit_tt", "runit_tai", "runit_rotate")
LOG_ROOT = "var/log"  # in the run folder: what the operator collects of /var/log
SERVICES = "service"  # the private service directory runsvdir watches (in the lab's scratch)
RAW_DIR = "_runit_raw"  # the lab's stamp-less copies of each task's lines (removed at the end)
ROTATE_BYTES = 4096
ROTATE_FILES = 20
STOP_WAIT = 7  # sv's -w: force-stop sends KILL after this many seconds
OUTPUT_FORMS = {
    "runit_tt": f"svlogd -tt {LOG_ROOT}/tf-worker-N: each service's lines behind "
    "'YYYY-MM-DD_HH:MM:SS.xxxxx ' UTC stamps in current",
    "runit_tai": f"svlogd -t {LOG_ROOT}/tf-worker-N: each service's lines behind TAI64N "
    "'@4000000069...' stamps in current",
    "runit_rotate": f"svlogd -tt or -ttt {LOG_ROOT}/tf-worker-N with s{ROTATE_BYTES} "
    f"n{ROTATE_FILES} in its config: current rotated by svlogd into @<tai64n>.s files",
}
_PIECE = re.compile(r"^@[0-9a-f]{24}\.[su]$")


def find() -> str | None:
    """The runsvdir executable (sv, runsv and svlogd are beside it)."""
    return first_existing(ENV, CANDIDATES)


def check() -> str | None:
    """None when runit can run here, else what is missing."""
    exe = find()
    if exe is None:
        return f"runit is missing (apt-get install runit; or set {ENV} to its runsvdir)"
    for tool in ("runsv", "sv", "svlogd"):
        if not Path(exe).with_name(tool).exists():
            return f"runit's {tool} is missing beside {exe}"
    return None


def service(node: str) -> str:
    """The service a task is: ``worker:1`` is ``tf-worker-1``."""
    job, index = node.split(":")
    return f"tf-{job}-{index}"


def svlogd_flags(naming: str, seed: int) -> list[str]:
    """svlogd's stamp: -t (TAI64N) or -tt; a rotating run's every other one -ttt."""
    if naming == "runit_tai":
        return ["-t"]
    if naming == "runit_rotate" and (seed // len(NAMINGS)) % 2 == 1:
        return ["-ttt"]
    return ["-tt"]


def pieces(names: list[str]) -> list[str]:
    """A log directory's files in the order svlogd wrote them: the rotated ``@<tai64n>.s``
    (``.u``) pieces by their stamp, then ``current``."""
    out = sorted(n for n in names if _PIECE.match(n))
    if "current" in names:
        out.append("current")
    return out


def unstamp(line: str) -> str:
    """A log line without svlogd's stamp (one word and a space)."""
    return line.split(" ", 1)[1] if " " in line else ""


def run_script(python: str, script: str, args: list[str], env: dict, cwd: Path, name: str) -> str:
    lines = [
        "#!/bin/sh",
        f"# {name}: one task of the MultiWorkerMirroredStrategy job (a batch job: down, sv once)",
        "exec 2>&1",
        f"cd {shlex.quote(str(cwd))}",
    ]
    lines += [f"export {k}={shlex.quote(str(v))}" for k, v in env.items()]
    cmd = [python, "-u", script, *args]
    lines.append("exec " + " ".join(shlex.quote(str(a)) for a in cmd))
    return "\n".join(lines) + "\n"


class Runit:
    """One job's runit: its services, its runsvdir, its logs."""

    def __init__(self, out_dir: Path, naming: str, seed: int, nodes: list[str], scratch: Path):
        self.out_dir, self.naming = Path(out_dir).resolve(), naming
        self.nodes = list(nodes)
        self.scratch = Path(scratch)
        self.exe = find()
        self.flags = svlogd_flags(naming, seed)
        self.rotating = naming == "runit_rotate"
        self.svdir = self.scratch / SERVICES
        self.tasks: list[dict] = []
        self.popen: subprocess.Popen | None = None
        self.pids: dict[str, int] = {}
        self.exits: ExitEvents | None = None
        self._ended_at: float | None = None
        self.sv_calls: list[dict] = []
        self.operator_stopped: set[str] = set()
        self.signalled: list[str] = []
        self.scripts: dict[str, dict[str, str]] = {}
        self._stopper: threading.Thread | None = None
        self._done = False

    # ------------------------------------------------------------------ services
    def add(
        self, node: str, python: str, script: Path, args: list[str], env: dict, autostart: bool
    ) -> None:
        task = {"node": node, "python": python, "script": str(script), "args": list(args)}
        self.tasks.append({**task, "env": dict(env), "autostart": autostart})

    def log_dir(self, node: str) -> Path:
        return self.out_dir / LOG_ROOT / service(node)

    def write_services(self) -> None:
        for t in self.tasks:
            name = service(t["node"])
            d = self.svdir / name
            (d / "log").mkdir(parents=True, exist_ok=True)
            run = run_script(t["python"], t["script"], t["args"], t["env"], self.scratch, name)
            logdir = self.log_dir(t["node"])
            logdir.mkdir(parents=True, exist_ok=True)
            log_run = "#!/bin/sh\nexec " + " ".join(
                [str(Path(self.exe).with_name("svlogd")), *self.flags, shlex.quote(str(logdir))]
            )
            log_run += "\n"
            (d / "run").write_text(run, encoding="utf-8")
            (d / "log" / "run").write_text(log_run, encoding="utf-8")
            os.chmod(d / "run", 0o755)
            os.chmod(d / "log" / "run", 0o755)
            (d / "down").write_bytes(b"")  # a batch task: started by sv once, never restarted
            self.scripts[t["node"]] = {"run": run, "log/run": log_run}
            if self.rotating:
                config = f"s{ROTATE_BYTES}\nn{ROTATE_FILES}\n"
                (logdir / "config").write_text(config, encoding="utf-8")
                self.scripts[t["node"]]["config"] = config

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        for k in ("TF_CONFIG", "PYTHONPATH", "VIRTUAL_ENV", "SVDIR"):
            env.pop(k, None)
        env["TZ"] = "UTC"
        env["PATH"] = f"{Path(self.exe).parent}:{env.get('PATH', '/usr/bin:/bin')}"
        return env

    def launch(self, lab, timeout: float = 30.0) -> None:
        """``runsvdir <service dir>``; once every runsv is up, ``sv once`` of the tasks that
        start now; registers every task in the lab."""
        from ._runner import Proc

        self.write_services()
        (self.out_dir / RAW_DIR).mkdir(parents=True, exist_ok=True)
        self.exits = ExitEvents()
        self.popen = lab.start_helper(
            [self.exe, "-P", str(self.svdir)],
            stdout=open(self.scratch / "runsvdir.out", "wb"),  # noqa: SIM115 - lab's scratch
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=self.env(),
            cwd=str(self.scratch),
        )
        end = time.monotonic() + timeout
        oks = [self.svdir / service(t["node"]) / "supervise" / "ok" for t in self.tasks]
        while time.monotonic() < end and not all(p.exists() for p in oks):
            if self.popen.poll() is not None:
                break
            time.sleep(0.05)
        if not all(p.exists() for p in oks):
            raise RuntimeError("runsvdir did not bring up every runsv")
        now = time.monotonic()
        first = [t["node"] for t in self.tasks if t["autostart"]]
        if first:
            self.sv("once", *first)
        for n in (t["node"] for t in self.tasks):  # each task as the lab's process table has it
            task = LauncherTask(self, n, f"runit service {service(n)}")
            current = Path(lab.out_dir) / LOG_ROOT / service(n) / "current"  # as the lab has it
            lab.procs[n] = Proc(n, task, current, now, reader=lambda n=n: self.read(n))
        threading.Thread(target=self._find_tasks, daemon=True, name="runit-services").start()

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def _find_tasks(self) -> None:
        """Each service's python: a python descendant of runsvdir whose parent is ``runsv
        tf-worker-N``."""
        names = {service(t["node"]): t["node"] for t in self.tasks}
        while set(self.pids) < set(names.values()) and self.alive():
            for pid in descendants(self.popen.pid):
                if pid in self.pids.values():
                    continue
                try:
                    exe = os.readlink(f"/proc/{pid}/exe")
                    stat = Path(f"/proc/{pid}/stat").read_text()
                    ppid = int(stat.rsplit(")", 1)[1].split()[1])
                    parent = Path(f"/proc/{ppid}/cmdline").read_bytes().split(b"\0")
                except (OSError, ValueError, IndexError):
                    continue
                if "python" not in os.path.basename(exe) or len(parent) < 2:
                    continue
                if os.path.basename(parent[0].decode()) != "runsv":
                    continue
                node = names.get(parent[1].decode())
                if node is not None:
                    self.pids.setdefault(node, pid)
            time.sleep(0.05)

    # ------------------------------------------------------------------ sv
    def sv(self, command: str, *nodes: str, wait: int | None = None) -> str:
        """``sv [-w N] <command> <service dir>...`` (runit's own control program)."""
        words = [command, *(str(self.svdir / service(n)) for n in nodes)]
        cmd = [str(Path(self.exe).with_name("sv"))]
        if wait is not None:
            cmd += ["-w", str(wait)]
        t0 = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        try:
            r = subprocess.run(
                cmd + words, capture_output=True, text=True, timeout=60, env=self.env()
            )
            out = (r.stdout + r.stderr).strip()
        except subprocess.TimeoutExpired:
            out = "(timed out)"
        shown = " ".join(["sv", *cmd[1:], command, *(service(n) for n in nodes)])
        self.sv_calls.append({"utc": t0, "command": shown, "output": out[:400]})
        return out

    def start_program(self, node: str) -> str:
        """A task started late: ``sv once tf-worker-N``."""
        return self.sv("once", node)

    def stop_program(self, node: str) -> str:
        """A preemption: ``sv term tf-worker-N`` (SIGTERM to its python)."""
        return self.sv("term", node)

    def running(self) -> list[str]:
        """The services whose python runs (found, not yet ended by the kernel's word)."""
        ended = self.exits.status if self.exits is not None else {}
        return [
            t["node"]
            for t in self.tasks
            if (pid := self.pids.get(t["node"])) is not None
            and pid not in ended
            and Path(f"/proc/{pid}").exists()
        ]

    def stop_all(self, why: str) -> None:
        """``sv -w 7 force-stop`` of the services still running, in the background."""
        if self._stopper is not None:
            return
        running = self.running()
        self.operator_stopped.update(running)
        if running:
            names = " ".join(service(n) for n in running)
            self.signalled.append(f"{why}: sv -w {STOP_WAIT} force-stop {names}")
        self._stopper = threading.Thread(
            target=lambda: running and self.sv("force-stop", *running, wait=STOP_WAIT),
            daemon=True,
        )
        self._stopper.start()

    def terminate(self) -> None:
        """The host going down as runit's stage 3 takes it: ``sv -w 7 force-stop`` of every
        service, then ``sv exit``."""
        nodes = [t["node"] for t in self.tasks]
        self.operator_stopped.update(self.running())
        self.signalled.append("shutdown: sv -w 7 force-stop (every service), sv exit")

        def down() -> None:
            self.sv("force-stop", *nodes, wait=STOP_WAIT)
            self.sv("exit", *nodes)

        self._stopper = threading.Thread(target=down, daemon=True)
        self._stopper.start()

    def job_event(self, event: str) -> None:
        """The job's time limit: the operator force-stops what still runs; the job's end: the
        same, then ``sv exit`` of every service (each runsv and svlogd exit) and SIGHUP to
        runsvdir (a runsvdir still there after that is the lab cleanup's to kill)."""
        if event == "time_limit":
            self.stop_all("time_limit")
        elif event == "end" and not self._done and self.popen is not None:
            self._done = True
            self._end()

    def _end(self) -> None:
        if self.alive():
            self.stop_all("end")
            self._stopper.join(STOP_WAIT + 30)
            self.sv("exit", *(t["node"] for t in self.tasks))
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.popen.pid, signal.SIGHUP)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(STOP_WAIT + 30)
        end = time.monotonic() + 10  # every svlogd gone: its last lines written
        while time.monotonic() < end and any(
            "svlogd" in p for p in _cmdlines(str(self.out_dir / LOG_ROOT))
        ):
            time.sleep(0.1)

    # ------------------------------------------------------------------ output
    def svlogd_files(self, node: str) -> list[str]:
        d = self.log_dir(node)
        with contextlib.suppress(OSError):
            rel = d.relative_to(self.out_dir).as_posix()
            return [f"{rel}/{n}" for n in pieces(os.listdir(d))]
        return []

    def read(self, node: str) -> str:
        lines: list[str] = []  # every piece's lines, oldest first, without svlogd's stamps
        for name in self.svlogd_files(node):
            with contextlib.suppress(FileNotFoundError):
                lines += (self.out_dir / name).read_text(errors="replace").splitlines()
        return "".join(unstamp(x) + "\n" for x in lines)

    @staticmethod
    def _raw(node: str) -> str:
        return node.replace(":", "-") + ".log"

    def node_files(self, node: str) -> list[str]:
        """The files the evidence is looked for in: a stamp-less copy of the task's lines
        (pointed at svlogd's files by :meth:`finish`)."""
        if not self.svlogd_files(node):
            return []
        raw = self.out_dir / RAW_DIR / self._raw(node)
        raw.parent.mkdir(parents=True, exist_ok=True)
        raw.write_text(self.read(node), encoding="utf-8")
        return [f"{RAW_DIR}/{raw.name}"]

    def finish(self, truth: dict) -> None:
        """The node files are svlogd's (every evidence line pointed at its stamped line); the
        services' scripts and sv's calls go into truth; runit leaves no job-level file."""
        if self.exits is not None:
            self.exits.close()
        for node in self.nodes:
            for extra in ("lock", "config", "state", "newstate"):
                (self.log_dir(node) / extra).unlink(missing_ok=True)
        where: dict[str, list[tuple[str, int, str]]] = {}
        for node in self.nodes:
            rows = []
            for name in self.svlogd_files(node):
                text = (self.out_dir / name).read_text(encoding="utf-8", errors="replace")
                rows += [(name, i, line) for i, line in enumerate(text.splitlines(), 1)]
            where[node] = rows
        for ev in truth["evidence"]:
            rows = where.get(ev["node"], [])
            no = ev["line_no"]
            if no > len(rows) or not unstamp(rows[no - 1][2]).startswith(ev["text"][:60]):
                raise RuntimeError(f"{ev['node']}'s line {no} is not in its svlogd files")
            ev["file"], ev["line_no"], ev["text"] = (
                rows[no - 1][0],
                rows[no - 1][1],
                rows[no - 1][2][:400],
            )
        for node, files in truth["node_files"].items():
            truth["node_files"][node] = self.svlogd_files(node) if files else []
        import shutil

        shutil.rmtree(self.out_dir / RAW_DIR, ignore_errors=True)
        truth["launcher_files"] = []
        truth["runit"] = {
            "output": OUTPUT_FORMS[self.naming],
            "version": version(),
            "svlogd_flags": " ".join(self.flags),
            "services": {
                t["node"]: {
                    "service": service(t["node"]),
                    "pid": self.pids.get(t["node"]),
                    "log_dir": f"{LOG_ROOT}/{service(t['node'])}",
                    "started_by": "sv once" if t["autostart"] else "sv once (later)",
                    "stopped_by_operator": t["node"] in self.operator_stopped,
                    **self.scripts.get(t["node"], {}),
                }
                for t in self.tasks
            },
            "batch": "each service has a down file and is started by sv once: runsv does not "
            "restart it when it stops",
            "sv": self.sv_calls,
            "operator": self.signalled,
        }


def version() -> str | None:
    """runit has no --version: the package's (Debian's runit 2.1.2-54)."""
    with contextlib.suppress(Exception):
        r = subprocess.run(
            ["dpkg-query", "-W", "-f", "${Version}", "runit"], capture_output=True, text=True
        )
        return f"runit {r.stdout.strip()}" if r.returncode == 0 and r.stdout.strip() else None
    return None


def _cmdlines(needle: str) -> list[str]:
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            with contextlib.suppress(OSError):
                cmd = Path(f"/proc/{d}/cmdline").read_bytes().replace(b"\0", b" ").decode()
                if needle in cmd:
                    out.append(cmd)
    return out
