"""tmux's side of the lab's ``mwms_tmux`` style: every task typed into a window of one tmux.

The launcher does not play tmux: it runs the distribution's own tmux (3.3a, ``apt-get install
tmux``, a recording-only tool, not a tfdiag dependency) the way a researcher runs a job by hand
on one bare host: one detached session ``train`` on a private server (``tmux -L <socket>``,
:func:`socket_name`), one window per task (``worker-0`` .. ``worker-2``, :func:`window`), each
window's login shell getting the task's command typed into it with ``tmux send-keys``:
``export TF_CONFIG='...'; /path/to/python -u mwms_keras.py ...`` (:func:`shell_command`). The
task program is ``tasks/mwms_keras.py`` (MultiWorkerMirroredStrategy with Keras ``Model.fit``,
three workers, worker 0 hosting the coordination service and checkpointing) with
``--fit-verbose 1``: its standard output is the window's pty, so Keras draws its interactive
progress bar (``\\r`` and ``\\b`` redraws) and every line ends in ``\\r\\n`` (the pty's
``onlcr``). Nothing of it is cleaned: that is the point of the style.

The logs as a user collects them (:data:`NAMINGS`, a third of the cells each):

- ``tmux_pipe``: ``tmux pipe-pane -o -t <window> 'cat >> logs/#{window_name}.log'``, set
  before the command is typed: the raw pty stream, the shell's prompt and the command's echo
  included, into ``logs/worker-N.log``;
- ``tmux_script``: the window runs ``script -q -f logs/worker-N.typescript -c '<python ...>'``
  (util-linux ``script``: its own header and ``Script done`` footer lines around the stream of
  its own pty), TF_CONFIG exported by the shell first;
- ``tmux_capture``: no log file during the run; at the end the operator saves each window's
  history with ``tmux capture-pane -p -J -S - -t <window> > logs/worker-N.txt`` (the panes
  rendered as tmux holds them: the progress bar as its last drawing, wrapped lines joined, the
  history cut at tmux's default ``history-limit`` of 2000 lines if it was longer).
  ``remain-on-exit`` is on (tmux.conf) so that a pane whose shell ended keeps its history.

Stops and faults are the ones a tmux user causes: the operator's Ctrl-C is
``tmux send-keys -t <window> C-c`` (SIGINT to the window's foreground process group: the
python raises KeyboardInterrupt); the job's time limit (it stopped making progress) is the
operator's Ctrl-C in every window whose python still runs; the operator's end of the job is
``tmux kill-server`` (SIGHUP to every pane's shell, which hangs up its jobs) after a Ctrl-C in
the windows still running and, in ``tmux_capture``, after saving every window; a job cancelled
as a whole (preempt_job) is ``tmux kill-session`` mid-training (in ``tmux_capture`` the windows
saved just before). A preemption of one task is SIGTERM from outside to its python, a kill its
SIGKILL, a stall SIGSTOP (the window's shell then reports the job as Stopped and takes the
terminal back). A task started late is a command typed into its window later; a missing task
a window the operator never opened (its address still in the cluster).

Each task's python is found among the descendants of its window's pane process, its end read
from the kernel's exit events (:class:`analyzer.lab.mpi.ExitEvents`). tmux writes no file of its
own: the run folder holds only ``logs/``. The lab follows each task's progress in the layout's
own file (the capture layout: a pipe-pane of the lab's into ``_tmux_watch/`` in the run folder,
removed once the run is recorded: not part of the run).
What was typed, tmux's configuration and the operator's commands are kept in truth.json. No
TensorFlow import here.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import threading
import time
from pathlib import Path

from analyzer.lab._runner import descendants, first_existing

from .mpi import ExitEvents, LauncherTask

ENV = "TFDIAG_LAB_TMUX"
CANDIDATES = ("/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux")
SCRIPT_CANDIDATES = ("/usr/bin/script", "/bin/script")
NAMINGS = ("tmux_pipe", "tmux_script", "tmux_capture")
SESSION = "train"
LOG_DIR = "logs"
WIDTH, HEIGHT = 200, 50  # the detached session's size (a maximised terminal)
HISTORY_LIMIT = 2000  # tmux's default history-limit (not set in tmux.conf)
STOP_WAIT = 7  # seconds the operator waits after a Ctrl-C before ending the session
WATCH_DIR = "_tmux_watch"  # the lab's pipe-pane copies in the capture layout (removed)
SUFFIX = {"tmux_pipe": ".log", "tmux_script": ".typescript", "tmux_capture": ".txt"}
OUTPUT_FORMS = {
    "tmux_pipe": f"tmux pipe-pane -o 'cat >> {LOG_DIR}/#{{window_name}}.log' on each window "
    "before its command is typed: the raw pty stream (prompt, echoed command, CRLF, Keras's "
    "progress-bar redraws)",
    "tmux_script": f"each window runs script -q -f {LOG_DIR}/worker-N.typescript -c '<python "
    "...>': util-linux script's typescript of its pty (its header and footer lines, CRLF, "
    "Keras's progress-bar redraws)",
    "tmux_capture": f"no log during the run; at the end tmux capture-pane -p -J -S - of each "
    f"window > {LOG_DIR}/worker-N.txt (the rendered history, history-limit {HISTORY_LIMIT})",
}
CONF = "set -g remain-on-exit on\n"  # the user's ~/.tmux.conf (history-limit left at 2000)
# What every window's shell has from the server's environment (not typed): the lab's knobs
# that are the same for every task.
TYPED = ("TF_CONFIG",)


def find() -> str | None:
    return first_existing(ENV, CANDIDATES)


def check(naming: str = "tmux_pipe") -> str | None:
    """None when the style can run here, else what is missing."""
    if find() is None:
        return f"tmux is missing (apt-get install tmux; or set {ENV})"
    if naming == "tmux_script" and first_existing("TFDIAG_LAB_SCRIPT", SCRIPT_CANDIDATES) is None:
        return "util-linux script is missing"
    return None


def window(node: str) -> str:
    """The window a task runs in: ``worker:1`` is ``worker-1``."""
    job, index = node.split(":")
    return f"{job}-{index}"


def log_name(naming: str, node: str) -> str:
    """The task's log in the run folder: ``logs/worker-1.log`` (.typescript, .txt)."""
    return f"{LOG_DIR}/{window(node)}{SUFFIX[naming]}"


def socket_name(seed: int) -> str:
    """A private server per run (``tmux -L``): the user's own tmux is never touched."""
    return f"tfdiag-lab-{os.getpid()}-{seed}-{time.monotonic_ns() % 10**6}"


def split_env(envs: list[dict]) -> tuple[dict, list[dict]]:
    """The variables every task has alike go into the server's environment (each shell
    inherits them); TF_CONFIG and whatever differs is what is typed per window."""
    common: dict = {}
    if envs:
        first = envs[0]
        common = {
            k: v
            for k, v in first.items()
            if k not in TYPED and all(e.get(k) == v for e in envs[1:])
        }
    return common, [{k: v for k, v in e.items() if k not in common} for e in envs]


def python_command(python: str, script: str, args: list[str]) -> str:
    return " ".join(shlex.quote(str(a)) for a in [python, "-u", script, *args])


def shell_command(naming: str, node: str, python: str, script: str, args, typed: dict) -> str:
    """The line typed into the task's window."""
    cmd = python_command(python, script, list(args))
    if naming == "tmux_script":
        cmd = f"script -q -f {log_name(naming, node)} -c {shlex.quote(cmd)}"
    if typed:
        exports = " ".join(f"{k}={shlex.quote(str(v))}" for k, v in typed.items())
        return f"export {exports}; {cmd}"
    return cmd


def plain(data: bytes) -> str:
    """A pty stream as the lab reads it to follow progress (not what is recorded)."""
    return data.decode("utf-8", "replace").replace("\r\n", "\n")


def _alive(pid: int | None) -> bool:
    """A process that runs (a zombie not reaped by a PID 1 that reaps nothing is gone)."""
    if pid is None:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


class Tmux:
    """One job's tmux: its server, its session's windows, what was typed, its logs."""

    def __init__(self, out_dir: Path, naming: str, seed: int, nodes: list[str], scratch: Path):
        self.out_dir, self.naming, self.seed = Path(out_dir).resolve(), naming, seed
        self.nodes = list(nodes)
        self.scratch = Path(scratch)
        self.exe = find()
        self.socket = socket_name(seed)
        self.tasks: list[dict] = []
        self.pids: dict[str, int] = {}
        self.pane_pids: dict[str, int] = {}
        self.server_pid: int | None = None
        self.exits: ExitEvents | None = None
        self._ended_at: float | None = None
        self.commands: list[dict] = []  # every tmux command the operator ran
        self.typed: dict[str, str] = {}
        self.server_env: dict[str, str] = {}
        self.operator_stopped: set[str] = set()
        self.interrupted: set[str] = set()
        self.signalled: list[str] = []
        self.captured = False
        self.outlived: list[str] = []
        self._done = False
        # the lab's own copy of each capture-layout window's stream (it follows progress and
        # reads what came after the fault in it after the lab's cleanup removed its scratch):
        # in the run folder until finish() removes it
        self.watch_dir = self.out_dir / WATCH_DIR

    # ------------------------------------------------------------------ tmux
    def tmux(self, *words: str, stdout=None, record: bool = True) -> str:
        """``tmux -L <socket> <words>`` (the operator's command)."""
        cmd = [self.exe, "-L", self.socket, *words]
        t0 = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        try:
            r = subprocess.run(
                cmd,
                stdout=stdout if stdout is not None else subprocess.PIPE,
                stderr=subprocess.PIPE,
                timeout=30,
                env=self.env(),
                cwd=str(self.out_dir),
            )
            out = ((r.stdout or b"") if stdout is None else b"").decode(errors="replace")
            err = r.stderr.decode(errors="replace").strip()
        except subprocess.TimeoutExpired:
            out, err = "", "(timed out)"
        if record:
            shown = " ".join(["tmux", "-L", "<socket>", *(shlex.quote(w) for w in words)])
            self.commands.append({"utc": t0, "command": shown[:600], "error": err[:300]})
        return out

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        for k in ("TF_CONFIG", "PYTHONPATH", "VIRTUAL_ENV", "TMUX", "TMUX_PANE"):
            env.pop(k, None)
        env.update(self.server_env)
        env["TZ"] = "UTC"
        env["SHELL"] = "/bin/bash"
        env["HISTFILE"] = str(self.scratch / ".bash_history")
        env.setdefault("TERM", "xterm-256color")
        return env

    # ------------------------------------------------------------------ windows
    def add(
        self, node: str, python: str, script: Path, args: list[str], env: dict, autostart: bool
    ) -> None:
        task = {"node": node, "python": python, "script": str(script), "args": list(args)}
        self.tasks.append({**task, "env": dict(env), "autostart": autostart})

    def target(self, node: str) -> str:
        return f"{SESSION}:{window(node)}"

    def log_path(self, node: str) -> Path:
        return self.out_dir / log_name(self.naming, node)

    def watch_path(self, node: str) -> Path:
        """The file the lab follows the task's progress in."""
        if self.naming == "tmux_capture":
            return self.watch_dir / f"{window(node)}.log"
        return self.log_path(node)

    def launch(self, lab, timeout: float = 30.0) -> None:
        """The tmux server, its session and one window per task (pipe-pane set first in the
        pipe layout); once each window's shell shows its prompt, the commands of the tasks
        that start now are typed; registers every task in the lab."""
        from ._runner import Proc

        common, typed = split_env([t["env"] for t in self.tasks])
        self.server_env = {k: str(v) for k, v in common.items()}
        for t, own in zip(self.tasks, typed, strict=True):
            t["typed"] = own
            self.typed[t["node"]] = shell_command(
                self.naming, t["node"], t["python"], t["script"], t["args"], own
            )
        (self.out_dir / LOG_DIR).mkdir(parents=True, exist_ok=True)
        if self.naming == "tmux_capture":
            self.watch_dir.mkdir(parents=True, exist_ok=True)
        conf = self.scratch / "tmux.conf"
        conf.write_text(CONF, encoding="utf-8")
        self.exits = ExitEvents()
        windows = [window(t["node"]) for t in self.tasks]
        first, rest = windows[0], windows[1:]
        self.tmux("-f", str(conf), "new-session", "-d", "-s", SESSION, "-n", first,
                  "-x", str(WIDTH), "-y", str(HEIGHT), "-c", str(self.out_dir))  # fmt: skip
        for w in rest:
            self.tmux("new-window", "-d", "-t", f"{SESSION}:", "-n", w, "-c", str(self.out_dir))
        pid = self.tmux("display-message", "-p", "#{pid}", record=False).strip()
        if not pid.isdigit():
            raise RuntimeError("the tmux server did not start")
        self.server_pid = int(pid)
        panes = self.tmux(
            "list-panes", "-s", "-t", SESSION, "-F", "#{window_name} #{pane_pid}", record=False
        )
        by_window = dict(line.split() for line in panes.splitlines() if line.strip())
        for t in self.tasks:
            self.pane_pids[t["node"]] = int(by_window[window(t["node"])])
        for t in self.tasks:
            n = t["node"]
            if self.naming == "tmux_pipe":
                self.tmux("pipe-pane", "-o", "-t", self.target(n),
                          f"cat >> {LOG_DIR}/#{{window_name}}.log")  # fmt: skip
            elif self.naming == "tmux_capture":  # the lab's own watch, not part of the run
                self.tmux("pipe-pane", "-t", self.target(n),
                          f"cat >> {shlex.quote(str(self.watch_path(n)))}", record=False)  # fmt: skip
        end = time.monotonic() + timeout
        while time.monotonic() < end:  # each shell has drawn its prompt
            shown = [self.tmux("capture-pane", "-p", "-t", self.target(t["node"]), record=False)
                     for t in self.tasks]  # fmt: skip
            if all(s.strip() for s in shown):
                break
            time.sleep(0.1)
        now = time.monotonic()
        for t in self.tasks:
            if t["autostart"]:
                self.type_command(t["node"])
        for t in self.tasks:  # each task as the lab's process table has it
            n = t["node"]
            task = LauncherTask(self, n, f"tmux window {window(n)}")
            log = Path(lab.out_dir) / log_name(self.naming, n)  # as the lab has it (-o relative)
            lab.procs[n] = Proc(n, task, log, now, reader=lambda n=n: self.read(n))
        threading.Thread(target=self._find_tasks, daemon=True, name="tmux-windows").start()

    def type_command(self, node: str) -> None:
        """The task's command typed into its window, then Enter."""
        self.tmux("send-keys", "-t", self.target(node), "-l", self.typed[node])
        self.tmux("send-keys", "-t", self.target(node), "Enter")

    def start_program(self, node: str) -> None:
        """A task started late: its command typed now."""
        self.type_command(node)

    def alive(self) -> bool:
        return _alive(self.server_pid)

    def _find_tasks(self) -> None:
        """Each window's python: a python process below its pane's shell."""
        want = {t["node"] for t in self.tasks}
        while set(self.pids) < want and self.alive():
            for node, pane in self.pane_pids.items():
                if node in self.pids:
                    continue
                for pid in descendants(pane):
                    try:
                        exe = os.readlink(f"/proc/{pid}/exe")
                    except OSError:
                        continue
                    if "python" in os.path.basename(exe):
                        self.pids.setdefault(node, pid)
                        break
            time.sleep(0.05)

    def running(self) -> list[str]:
        """The tasks whose python runs (found, not yet ended by the kernel's word)."""
        ended = self.exits.status if self.exits is not None else {}
        return [
            t["node"]
            for t in self.tasks
            if (pid := self.pids.get(t["node"])) is not None and pid not in ended and _alive(pid)
        ]

    # ------------------------------------------------------------------ the operator
    def ctrl_c(self, nodes: list[str], why: str) -> None:
        """``tmux send-keys -t <window> C-c`` in each window (SIGINT to its foreground)."""
        if not nodes:
            return
        self.signalled.append(f"{why}: Ctrl-C (send-keys C-c) in {', '.join(map(window, nodes))}")
        for n in nodes:
            self.tmux("send-keys", "-t", self.target(n), "C-c")
        self.operator_stopped.update(nodes)
        self.interrupted.update(nodes)

    def wait_gone(self, nodes: list[str], seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end and any(n in self.running() for n in nodes):
            time.sleep(0.1)

    def capture(self) -> None:
        """The operator saves each window's history (the capture layout, once)."""
        if self.naming != "tmux_capture" or self.captured or not self.alive():
            return
        self.captured = True
        for t in self.tasks:
            path = self.log_path(t["node"])
            with open(path, "wb") as fh:
                self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", self.target(t["node"]),
                          stdout=fh)  # fmt: skip
        self.signalled.append(
            f"saved every window: tmux capture-pane -p -J -S - -t <window> > {LOG_DIR}/worker-N.txt"
        )

    def terminate(self) -> None:
        """The job cancelled as a whole: ``tmux kill-session`` (SIGHUP to every pane's shell
        and its jobs); the capture layout's windows saved just before."""
        self.capture()
        self.operator_stopped.update(self.running())
        self.signalled.append(f"job cancelled: tmux kill-session -t {SESSION}")
        self.tmux("kill-session", "-t", SESSION)

    def job_event(self, event: str) -> None:
        """The job's time limit: Ctrl-C in every window whose python still runs; the job's
        end: Ctrl-C in those still running, a wait, the windows saved (capture layout), then
        ``tmux kill-server``."""
        if event == "time_limit":
            self.ctrl_c(self.running(), "time_limit")
        elif event == "end" and not self._done and self.server_pid is not None:
            self._done = True
            self._end()

    def _end(self) -> None:
        if self.alive():
            left = self.running()
            if left:
                self.ctrl_c([n for n in left if n not in self.interrupted], "end")
                self.wait_gone(left, STOP_WAIT)
            self.capture()
            self.operator_stopped.update(self.running())
            self.signalled.append("end: tmux kill-server")
            self.tmux("kill-server")
        end = time.monotonic() + 10
        while time.monotonic() < end and self.alive():
            time.sleep(0.1)
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.server_pid, signal.SIGKILL)
        end = time.monotonic() + 5  # the shells gone, pipe-pane's cat has written its last bytes
        while time.monotonic() < end and any(_alive(p) for p in self.pane_pids.values()):
            time.sleep(0.1)
        time.sleep(0.3)
        # a python the hang-up did not end (blocked in TensorFlow, or under script, which
        # does not pass the hang-up on) runs on without a terminal: the lab's cleanup kills it
        self.outlived = self.running()

    # ------------------------------------------------------------------ output
    def read(self, node: str) -> str:
        try:
            return plain(self.watch_path(node).read_bytes())
        except FileNotFoundError:
            return ""

    def node_files(self, node: str) -> list[str]:
        path = self.log_path(node)
        return [path.relative_to(self.out_dir).as_posix()] if path.is_file() else []

    def finish(self, truth: dict) -> None:
        """tmux leaves no job-level file; what was typed and done goes into truth."""
        if self.exits is not None:
            self.exits.close()
        import shutil

        shutil.rmtree(self.watch_dir, ignore_errors=True)
        truth["launcher_files"] = []
        truth["tmux"] = {
            "output": OUTPUT_FORMS[self.naming],
            "version": version(self.exe),
            "script": script_version() if self.naming == "tmux_script" else None,
            "server": f"tmux -L <private socket> -f tmux.conf new-session -d -s {SESSION} "
            f"-x {WIDTH} -y {HEIGHT}",
            "tmux.conf": CONF,
            "history_limit": HISTORY_LIMIT,
            "server_environment": self.server_env,
            "windows": {
                t["node"]: {
                    "window": window(t["node"]),
                    "log": log_name(self.naming, t["node"]),
                    "pid": self.pids.get(t["node"]),
                    "typed": self.typed.get(t["node"]),
                    "typed_when": "at the start" if t["autostart"] else "later",
                    "stopped_by_operator": t["node"] in self.operator_stopped,
                }
                for t in self.tasks
            },
            "commands": self.commands,
            "operator": self.signalled,
            "outlived_the_session": self.outlived,
        }
        if self.signalled:
            truth["notes"] += " What the operator did in tmux: " + "; ".join(self.signalled) + "."
        if self.outlived:
            truth["notes"] += (
                f" {', '.join(self.outlived)} outlived the session's end (its python still ran "
                "without a terminal after tmux kill-server) and was SIGKILLed when the lab ended "
                "the run."
            )


def version(exe: str | None) -> str | None:
    with contextlib.suppress(Exception):
        r = subprocess.run([exe, "-V"], capture_output=True, text=True, timeout=20)
        return r.stdout.strip() or None
    return None


def script_version() -> str | None:
    exe = first_existing("TFDIAG_LAB_SCRIPT", SCRIPT_CANDIDATES)
    with contextlib.suppress(Exception):
        r = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=20)
        return r.stdout.strip() or None
    return None
