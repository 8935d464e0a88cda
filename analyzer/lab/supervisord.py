"""supervisord's side of the lab's ``tf1_supervisord`` style: one real supervisord runs every task.

The launcher does not play supervisord: it writes a configuration file as an operator of bare
hosts would and runs Supervisor's own ``supervisord -c <conf>`` (4.3, from its own interpreter:
:data:`ENV` or :data:`CANDIDATES`, a recording-only tool kept out of the lab venv, as Ray is),
in the foreground (``nodaemon=true``), for the whole job. Each task of the TF1 between-graph
cluster (``tasks/tf1_training.py``: ``tf.compat.v1.train.Server`` ps + workers,
MonitoredTrainingSession) is one ``[program:tf-ps-0]`` / ``[program:tf-worker-N]``
(:func:`program`), its TF_CONFIG and the lab's variables in the program's ``environment=``,
``autorestart=false`` (a fault stays a fault), ``stopsignal=TERM``, ``stopwaitsecs=5``
(:data:`STOP_WAIT_SECS`). The operator talks to it with ``supervisorctl`` over the unix socket
of ``[unix_http_server]`` (``supervisor.sock`` in the run folder while the job runs):
``supervisorctl start`` for a task started late, ``supervisorctl stop <program>`` for a
preemption, ``supervisorctl stop all`` when the job stops making progress or when the training
ended (the ps only serve), then ``supervisorctl shutdown``. A job cancelled as a whole is
SIGTERM to supervisord (its host shutting down), which stops every program itself.

What supervisord writes is its own doing, left as it wrote it:

* **supervisord.log** (``logfile=``, in the run folder): its start lines, ``spawned: '<name>'
  with pid N``, ``success: <name> entered RUNNING state, process has stayed up for > than 1
  seconds (startsecs)``, ``exited: <name> (exit status N; expected|not expected)`` or
  ``exited: <name> (terminated by SIGKILL; not expected)``, ``waiting for <name> to stop``,
  ``killing '<name>' (N) with SIGKILL``, ``stopped: <name> (terminated by SIGTERM)``, and at
  its end ``received SIGTERM indicating exit request`` (process.py, supervisord.py).
* **Each program's output**, in one of three layouts (:data:`NAMINGS`, a third of the cells
  each):

  - ``sup_auto``: ``stdout_logfile=AUTO`` and ``stderr_logfile=AUTO`` into ``childlogdir``
    (the run folder): supervisord names them ``<program>-stdout---supervisor-<random>.log`` and
    ``<program>-stderr---supervisor-<random>.log`` (``options.get_autochildlog_name``, a
    ``tempfile`` name), the two streams apart;
  - ``sup_redirect``: ``redirect_stderr=true`` with ``stdout_logfile=<dir>/%(program_name)s.log``:
    one file per program, ``tf-ps-0.log``;
  - ``sup_rotate``: the same with ``stdout_logfile_maxbytes`` small (:data:`ROTATE_BYTES`), so
    supervisord itself rotates the file (``tf-worker-0.log``, ``.log.1``, ``.log.2``, ...;
    ``loggers.RotatingFileHandler``: a record is written whole, then the file rolled over).

The tasks are supervisord's children, not the launcher's: each one's pid and end are read from
supervisord's own ``spawned:`` / ``exited:`` / ``stopped:`` lines (:func:`events`). Nothing of
the launcher goes into the run folder but what supervisord wrote; the configuration file is
kept in truth.json. No TensorFlow import here.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

from analyzer.lab._runner import first_existing
from analyzer.lab.mpi import LaunchedProcess

ENV = "TFDIAG_LAB_SUPERVISORD"
CANDIDATES = ("/work/sup-venv/bin/supervisord", "/tmp/sup-venv/bin/supervisord")
NAMINGS = ("sup_auto", "sup_redirect", "sup_rotate")
MAIN_LOG = "supervisord.log"
SOCKET = "supervisor.sock"
CONF = "supervisord.conf"  # in the lab's scratch folder (kept in truth.json)
IDENTIFIER = "supervisor"  # supervisord's default identifier (the AUTO log names carry it)
STOP_WAIT_SECS = 5
START_SECS = 1
#: stdout_logfile_maxbytes of the rotating layout, and how many backups supervisord keeps.
ROTATE_BYTES = 4096
ROTATE_BACKUPS = 20
OUTPUT_FORMS = {
    "sup_auto": "stdout_logfile=AUTO, stderr_logfile=AUTO in childlogdir (the run folder): "
    f"<program>-stdout---{IDENTIFIER}-<random>.log and <program>-stderr---{IDENTIFIER}-"
    f"<random>.log per program; supervisord's own {MAIN_LOG}",
    "sup_redirect": "redirect_stderr=true, stdout_logfile=<dir>/%(program_name)s.log: "
    f"<program>.log per program; supervisord's own {MAIN_LOG}",
    "sup_rotate": "redirect_stderr=true, stdout_logfile=<dir>/%(program_name)s.log, "
    f"stdout_logfile_maxbytes={ROTATE_BYTES}, stdout_logfile_backups={ROTATE_BACKUPS}: "
    f"<program>.log rotated by supervisord into <program>.log.1, .log.2, ...; supervisord's "
    f"own {MAIN_LOG}",
}


def find() -> str | None:
    """The supervisord executable (its interpreter's bin holds supervisorctl too)."""
    return first_existing(ENV, CANDIDATES)


def check() -> str | None:
    """None when supervisord can run here, else what is missing."""
    if find() is None:
        return (
            f"supervisord is missing (a venv with pip install supervisor==4.3.0; set {ENV} to "
            "its bin/supervisord)"
        )
    return None


def ctl_path(supervisord: str) -> str:
    return str(Path(supervisord).with_name("supervisorctl"))


def program(node: str) -> str:
    """The program a task is: ``tf-ps-0``, ``tf-worker-1``."""
    job, index = node.split(":")
    return f"tf-{job}-{index}"


def env_value(value: str) -> str:
    """A value of ``environment=``: supervisord splits it with a POSIX shlex at commas, and its
    ConfigParser expands ``%(...)s``: single quotes keep a JSON text whole, ``%`` doubled."""
    if "'" in value:
        raise ValueError(f"no single quote can be kept in environment=: {value!r}")
    return "'" + value.replace("%", "%%") + "'"


def conf_text(
    *,
    run_dir: Path,
    scratch: Path,
    socket_path: Path,
    naming: str,
    programs: list[dict],
) -> str:
    """The configuration file: ``programs`` are dicts with ``name``, ``command`` (a list),
    ``env`` (a dict) and ``autostart``."""
    run_dir = Path(run_dir)
    lines = [
        f"; {naming}: written by the operator for one TF1 job (1 ps + 2 workers on this host)",
        "[unix_http_server]",
        f"file={socket_path}",
        "chmod=0700",
        "",
        "[supervisord]",
        f"logfile={run_dir / MAIN_LOG}",
        "logfile_maxbytes=50MB",
        "logfile_backups=10",
        "loglevel=info",
        f"pidfile={Path(scratch) / 'supervisord.pid'}",
        "nodaemon=true",
        "silent=true",
        f"identifier={IDENTIFIER}",
        f"childlogdir={run_dir}",
        "",
        "[rpcinterface:supervisor]",
        "supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface",
        "",
        "[supervisorctl]",
        f"serverurl=unix://{socket_path}",
        "",
    ]
    for p in programs:
        env = ",".join(f"{k}={env_value(str(v))}" for k, v in p["env"].items())
        lines += [
            f"[program:{p['name']}]",
            "command=" + " ".join(p["command"]),
            f"directory={scratch}",
            f"environment={env}",
            f"autostart={'true' if p.get('autostart', True) else 'false'}",
            "autorestart=false",
            f"startsecs={START_SECS}",
            "stopsignal=TERM",
            f"stopwaitsecs={STOP_WAIT_SECS}",
        ]
        if naming == "sup_auto":
            lines += ["stdout_logfile=AUTO", "stderr_logfile=AUTO"]
        else:
            lines += ["redirect_stderr=true", f"stdout_logfile={run_dir}/%(program_name)s.log"]
            if naming == "sup_rotate":
                lines += [
                    f"stdout_logfile_maxbytes={ROTATE_BYTES}",
                    f"stdout_logfile_backups={ROTATE_BACKUPS}",
                ]
            else:
                lines += ["stdout_logfile_maxbytes=50MB", "stdout_logfile_backups=10"]
        lines.append("")
    return "\n".join(lines)


_AUTO_RE = r"^{name}-(stdout|stderr)---{ident}-\S+\.log$"


def auto_files(names: list[str], name: str) -> list[str]:
    """A program's AUTO log files among a folder's file names, stdout first."""
    rx = re.compile(_AUTO_RE.format(name=re.escape(name), ident=re.escape(IDENTIFIER)))
    mine = [n for n in names if rx.match(n)]
    return sorted(mine, key=lambda n: ("-stderr---" in n, n))


def rotated_files(names: list[str], name: str) -> list[str]:
    """A program's ``<name>.log`` and supervisord's backups of it, oldest first
    (``.log.N`` ... ``.log.1``, then ``.log``)."""
    base = f"{name}.log"
    backups = []
    for n in names:
        m = re.fullmatch(re.escape(base) + r"\.(\d+)", n)
        if m:
            backups.append((int(m.group(1)), n))
    out = [n for _, n in sorted(backups, reverse=True)]
    if base in names:
        out.append(base)
    return out


def files_of(naming: str, names: list[str], node: str) -> list[str]:
    """The files a task's output is in, in the order it was written (AUTO: stdout, stderr)."""
    if naming == "sup_auto":
        return auto_files(names, program(node))
    return rotated_files(names, program(node))


_EVENT_RE = re.compile(
    r"^(?P<time>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) (?P<level>[A-Z]+) "
    r"(?:spawned: '(?P<spawned>[^']+)' with pid (?P<pid>\d+)"
    r"|(?P<how>exited|stopped): (?P<name>\S+) \((?P<status>[^)]*(?:\(core dumped\))?)[^)]*\))"
)


def status_code(status: str) -> int | None:
    """supervisord's wait-status words (``options.decode_wait_status``) as a returncode:
    ``exit status N`` -> N, ``terminated by SIGKILL`` -> -9."""
    m = re.match(r"exit status (\d+)", status)
    if m:
        return int(m.group(1))
    m = re.match(r"terminated by (SIG[A-Z0-9]+)", status)
    if m:
        with contextlib.suppress(KeyError):
            return -int(signal.Signals[m.group(1)])
    return None


def events(text: str) -> list[dict]:
    """supervisord's lines about its programs: spawned (with a pid), exited, stopped (with
    the returncode its words say)."""
    out = []
    for line in text.splitlines():
        m = _EVENT_RE.match(line)
        if not m:
            continue
        if m.group("spawned"):
            out.append({"event": "spawned", "name": m.group("spawned"), "pid": int(m.group("pid"))})
        else:
            out.append(
                {
                    "event": m.group("how"),
                    "name": m.group("name"),
                    "status": m.group("status"),
                    "code": status_code(m.group("status")),
                }
            )
    return out


class ProgramProcess(LaunchedProcess):
    """One program as the lab's process table sees it (``poll``, ``wait``, ``pid``,
    ``returncode`` as a Popen has them), from supervisord's own lines."""

    def __init__(self, sup: Supervisord, node: str):
        self.sup, self.node = sup, node
        self.label = program(node)

    def _found_pid(self) -> int | None:
        return self.sup.state(self.node)["pid"]

    def _launcher_alive(self) -> bool:
        return self.sup.alive()

    def poll(self) -> int | None:
        st = self.sup.state(self.node)
        if st["code"] is not None:
            return st["code"]
        if st["pid"] is not None and Path(f"/proc/{st['pid']}").exists():
            return None
        if self.sup.alive():
            return None
        # supervisord is gone and never said how the program ended
        return 255 if st["pid"] is not None or self.sup.started_at(self.node) else None


class Supervisord:
    """One job's supervisord: its configuration, its programs, its log."""

    def __init__(self, out_dir: Path, naming: str, nodes: list[str], scratch: Path):
        self.out_dir, self.naming = Path(out_dir).resolve(), naming
        self.nodes = list(nodes)
        self.scratch = Path(scratch)
        self.exe = find()
        self.programs: list[dict] = []
        self.popen: subprocess.Popen | None = None
        self.socket = self.out_dir / SOCKET
        if len(str(self.socket)) > 100:  # a unix socket's path has at most 107 bytes
            self.socket = self.scratch / SOCKET
        self.conf = ""
        self.operator_stopped: set[str] = set()
        self.ctl_calls: list[dict] = []
        self.signalled: list[tuple[str, int]] = []
        self._started: dict[str, float] = {}
        self._stopper: threading.Thread | None = None
        self._done = False

    # ------------------------------------------------------------------ conf
    def add(
        self, node: str, python: str, script: Path, args: list[str], env: dict, autostart: bool
    ) -> None:
        command = [python, "-u", str(script), *args]
        if any(" " in a or '"' in a or "'" in a for a in command):
            raise ValueError(f"a command= word with a space or quote: {command}")
        self.programs.append(
            {
                "name": program(node),
                "node": node,
                "command": command,
                "env": env,
                "autostart": autostart,
            }
        )

    def write_conf(self) -> Path:
        self.conf = conf_text(
            run_dir=self.out_dir,
            scratch=self.scratch,
            socket_path=self.socket,
            naming=self.naming,
            programs=self.programs,
        )
        path = self.scratch / CONF
        path.write_text(self.conf, encoding="utf-8")
        return path

    # ------------------------------------------------------------------ supervisord
    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        for k in ("TF_CONFIG", "PYTHONPATH", "VIRTUAL_ENV"):
            env.pop(k, None)
        env["TZ"] = "UTC"
        return env

    def launch(self, lab, timeout: float = 30.0) -> None:
        """``supervisord -c <conf>`` (foreground); registers every program in the lab."""
        from ._runner import Proc

        conf = self.write_conf()
        out = open(self.scratch / "supervisord.out", "wb")  # noqa: SIM115 - lab's scratch
        self.popen = lab.start_helper(
            [self.exe, "-c", str(conf)],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=self.env(),
            cwd=str(self.scratch),
        )
        end = time.monotonic() + timeout
        while time.monotonic() < end and not self.socket.exists():
            if self.popen.poll() is not None:
                break
            time.sleep(0.05)
        if not self.socket.exists():
            text = (self.scratch / "supervisord.out").read_text(errors="replace")
            raise RuntimeError(f"supervisord did not come up: {text[-400:]}")
        now = time.monotonic()
        for p in self.programs:
            node = p["node"]
            if p["autostart"]:
                self._started[node] = now
            lab.procs[node] = Proc(
                node,
                ProgramProcess(self, node),
                self.out_dir / MAIN_LOG,
                now,
                reader=lambda n=node: self.read(n),
            )

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def log_text(self) -> str:
        with contextlib.suppress(FileNotFoundError):
            return (self.out_dir / MAIN_LOG).read_text(errors="replace")
        return ""

    def state(self, node: str) -> dict:
        """The program's last pid and, once it ended, its returncode (supervisord's words)."""
        name = program(node)
        pid, code = None, None
        for e in events(self.log_text()):
            if e["name"] != name:
                continue
            if e["event"] == "spawned":
                pid, code = e["pid"], None
            else:
                code = e["code"] if e["code"] is not None else 255
        return {"pid": pid, "code": code}

    def started_at(self, node: str) -> float | None:
        return self._started.get(node)

    def ctl(self, *words: str, timeout: float = 60.0) -> str:
        """``supervisorctl -c <conf> <words>`` (over the unix socket)."""
        cmd = [ctl_path(self.exe), "-c", str(self.scratch / CONF), *words]
        t0 = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=self.env())
            out = (r.stdout + r.stderr).strip()
        except subprocess.TimeoutExpired:
            out = "(timed out)"
        self.ctl_calls.append(
            {"utc": t0, "command": "supervisorctl " + " ".join(words), "output": out[:400]}
        )
        return out

    def start_program(self, node: str) -> str:
        self._started[node] = time.monotonic()
        return self.ctl("start", program(node))

    def stop_program(self, node: str, *, by_operator: bool = True) -> threading.Thread:
        """``supervisorctl stop <program>`` in the background (SIGTERM, SIGKILL after
        stopwaitsecs)."""
        if by_operator:
            self.operator_stopped.add(node)
        t = threading.Thread(target=self.ctl, args=("stop", program(node)), daemon=True)
        t.start()
        return t

    def running(self) -> list[str]:
        out = []
        for p in self.programs:
            st = self.state(p["node"])
            if st["pid"] is not None and st["code"] is None:
                out.append(p["node"])
        return out

    def stop_all(self) -> None:
        """``supervisorctl stop all`` in the background (the operator's)."""
        if self._stopper is not None:
            return
        self.operator_stopped.update(self.running())
        self._stopper = threading.Thread(target=self.ctl, args=("stop", "all"), daemon=True)
        self._stopper.start()

    def terminate(self) -> None:
        """SIGTERM to supervisord (its host going down): it stops every program itself."""
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.popen.pid, signal.SIGTERM)
            self.signalled.append(("shutdown", signal.SIGTERM))

    def job_event(self, event: str) -> None:
        """The launcher's time limit: the operator stops every program; the job's end: the
        programs still running are stopped, then supervisord is shut down."""
        if event == "time_limit":
            self.stop_all()
            return
        if event != "end" or self._done:
            return
        self._done = True
        if self.alive():
            self.stop_all()
            self._stopper.join(STOP_WAIT_SECS + 30)
            self.ctl("shutdown")
        if self.popen is not None:
            try:
                self.popen.wait(STOP_WAIT_SECS + 30)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.popen.pid, signal.SIGKILL)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.popen.wait(10)

    # ------------------------------------------------------------------ output
    def node_files(self, node: str) -> list[str]:
        with contextlib.suppress(OSError):
            return files_of(self.naming, sorted(os.listdir(self.out_dir)), node)
        return []

    def read(self, node: str) -> str:
        out = []
        for name in self.node_files(node):
            with contextlib.suppress(FileNotFoundError):
                out.append((self.out_dir / name).read_text(errors="replace"))
        return "".join(out)

    def finish(self, truth: dict) -> None:
        """The node files are supervisord's; supervisord.log is the launcher's file; the
        configuration and supervisorctl's calls go into truth."""
        for name in (SOCKET,):
            with contextlib.suppress(FileNotFoundError):
                (self.out_dir / name).unlink()
        backups = sorted(p.name for p in self.out_dir.glob(MAIN_LOG + ".*") if p.is_file())
        launcher = [MAIN_LOG, *backups]
        truth["launcher_files"] = [f for f in launcher if (self.out_dir / f).exists()]
        log = events(self.log_text())
        truth["supervisord"] = {
            "output": OUTPUT_FORMS[self.naming],
            "version": self.version(),
            "programs": {
                n: {
                    "program": program(n),
                    "pid": self.state(n)["pid"],
                    "ended": next(
                        (
                            f"{e['event']}: {e['status']}"
                            for e in reversed(log)
                            if e["name"] == program(n) and e["event"] != "spawned"
                        ),
                        None,
                    ),
                    "stopped_by_operator": n in self.operator_stopped,
                }
                for n in truth["nodes"]
                if any(p["node"] == n for p in self.programs)
            },
            "program_settings": f"autorestart=false, startsecs={START_SECS}, stopsignal=TERM, "
            f"stopwaitsecs={STOP_WAIT_SECS}",
            "supervisorctl": self.ctl_calls,
            "signals_to_supervisord": [f"{w}: {signal.Signals(s).name}" for w, s in self.signalled],
            "conf": self.conf,
        }

    def version(self) -> str | None:
        with contextlib.suppress(Exception):
            r = subprocess.run([self.exe, "--version"], capture_output=True, text=True, timeout=20)
            return r.stdout.strip() or None
        return None
