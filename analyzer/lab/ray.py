"""Ray's side of the lab's ``mwms_ray`` style: a real Ray cluster runs Ray Train.

The launcher does not play Ray: it starts Ray (2.60, in its own interpreter: the style's
``Style.python``) as an operator would, ``ray start --head --block`` on this host with free
ports, 4 logical CPUs (the machine has 2 cores; Ray's CPUs are a scheduling count), its own
``--temp-dir`` per run, no dashboard UI; the job's driver is ``python ray_app.py`` (connected
with ``ray.init(address=...)``), its console output captured as a scheduler captures it. The
application (``tasks/ray_app.py``) fits one Ray Train ``TensorflowTrainer`` (Train V2, the
default in Ray 2.60) of one ``RayTrainWorker`` actor per TensorFlow worker; Ray Train's
TensorFlow backend sets each worker's TF_CONFIG, and the training runs in the actor's own
process (``tasks/mwms_ray.py``). Ray's defaults are kept: no retry of a failed run
(``FailureConfig(max_failures=0)``), every worker's output copied to the driver's console
behind ``(RayTrainWorker pid=N)`` with Ray's deduplication of repeated lines.

Three layouts (a third of the cells each), files named as Ray names them:

* **ray_driver**: the driver's console only (``python ray_app.py > ray-job.log 2>&1``): the
  driver's own lines and errors, and every actor's lines as Ray copies them to the driver.
* **ray_session**: Ray's session log folder only (``session_<date>_<pid>/logs/``, copied
  whole from the run's temp dir after the cluster stopped): each worker process's
  ``worker-<worker id>-<job id>-<pid>.out`` and ``.err``, ``python-core-worker-*.log``,
  ``raylet.out``, ``gcs_server.out``, the monitors' and agents' logs, ``events/``.
* **ray_both**: the session's logs and the driver's ``ray-job.out`` and ``ray-job.err``.

The launcher learns each TensorFlow worker's process id from the note its
``train_loop_per_worker`` leaves in the plan's ``marks`` folder (not a log; never in the run
folder), watches that worker process's ``worker-*-<pid>.out`` / ``.err`` in the live session,
and reads its exit status from the kernel's process events connector (as for mpirun's ranks).
No TensorFlow or Ray import here.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from ._runner import TASKS_DIR, descendants, free_ports
from .mpi import DriverTask, ExitEvents

NAMINGS = ("ray_driver", "ray_session", "ray_both")
DRIVER_LOG, DRIVER_OUT, DRIVER_ERR = "ray-job.log", "ray-job.out", "ray-job.err"
APP = "ray_app.py"
CPUS = 4
OUTPUT_FORMS = {
    "ray_driver": f"the driver's console only (python {APP} > {DRIVER_LOG} 2>&1): its own "
    "lines and errors, every Ray actor's lines as Ray copies them to the driver behind "
    "(RayTrainWorker pid=N), repeated lines deduplicated by Ray",
    "ray_session": "Ray's session log folder only (session_<date>_<pid>/logs/ as Ray left it: "
    "worker-<worker id>-<job id>-<pid>.out and .err per worker process, python-core-worker-"
    "*.log, raylet.out, gcs_server.out, the monitors' and agents' logs, events/)",
    "ray_both": f"Ray's session log folder and the driver's stdout and stderr in {DRIVER_OUT} "
    f"and {DRIVER_ERR}",
}
WORKER_FILE_RE = re.compile(r"^worker-[0-9a-f]+-[0-9a-f]+-(\d+)\.(out|err)$")


def ray_cli(python: str) -> str:
    """The ``ray`` command of the interpreter Ray is installed in."""
    return str(Path(python).parent / "ray")


def check(python: str | None) -> str | None:
    """None when Ray can run here, else what is missing."""
    if not python or not Path(ray_cli(python)).exists():
        return "Ray is missing (a venv with pip install 'ray[train]==2.60.0' tensorflow-cpu)"
    return None


def worker_files(names: list[str], pid: int) -> list[str]:
    """A worker process's files among a session's log file names (``worker-<worker id>-<job
    id>-<pid>.out`` / ``.err``), .out first."""
    mine = [n for n in names if (m := WORKER_FILE_RE.match(n)) and int(m.group(1)) == pid]
    return sorted(mine, key=lambda n: (not n.endswith(".out"), n))


def driver_files(naming: str) -> list[str]:
    if naming == "ray_driver":
        return [DRIVER_LOG]
    if naming == "ray_both":
        return [DRIVER_OUT, DRIVER_ERR]
    return []


def keeps_session(naming: str) -> bool:
    return naming != "ray_driver"


def driver_line_of(lines: list[str], pid: int | None, text: str) -> int | None:
    """The driver console's line (1-based) that holds a worker's line ``text``: Ray copies it
    behind ``(RayTrainWorker pid=N)`` (colour codes around), maybe with its repeat count; the
    worker's own prefix first, then any line holding the text."""
    text = text.strip()
    if not text:
        return None
    tag = f"pid={pid})" if pid is not None else None
    for want_tag in ((tag,) if tag else ()) + (None,):
        for no, line in enumerate(lines, 1):
            if text in line and (want_tag is None or want_tag in line):
                return no
    return None


class Ray:
    """One run's Ray cluster (a head node), its driver and the worker actors it runs."""

    def __init__(
        self, out_dir: Path, naming: str, seed: int, nodes: list[str], scratch: Path, python: str
    ):
        self.out_dir, self.naming, self.seed = Path(out_dir).resolve(), naming, seed
        self.nodes = list(nodes)  # world rank i is nodes[i]
        self.scratch = Path(scratch)
        self.python = python
        # short: Ray's unix sockets live under it (a socket path has at most 107 bytes)
        self.temp_dir = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))
        self.marks = self.scratch / "marks"
        self.head: subprocess.Popen | None = None
        self.head_pids: list[int] = []
        self.driver: subprocess.Popen | None = None
        self.exits: ExitEvents | None = None
        self.port = 0
        self.pids: dict[str, int] = {}
        self.notes: dict[str, dict] = {}
        self.signalled: list[tuple[str, int]] = []
        self.session: str | None = None
        self.command: list[str] = []
        self._ended_at: float | None = None
        self._handles: list = []
        self._stopped = False
        self._finished: set[str] | None = None

    # ------------------------------------------------------------------ cluster
    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        for k in ("TF_CONFIG", "PYTHONPATH", "VIRTUAL_ENV"):
            env.pop(k, None)
        env.update(
            {"PATH": f"{Path(self.python).parent}:{env.get('PATH', '')}", "TZ": "UTC"},
        )
        return env

    def start_cluster(self, lab, timeout: float = 90.0) -> None:
        """``ray start --head --block`` (the operator's head node), until its GCS answers."""
        self.port, dash, client = free_ports(3)
        cmd = [
            ray_cli(self.python),
            "start",
            "--head",
            "--block",
            "--port",
            str(self.port),
            "--num-cpus",
            str(CPUS),
            "--temp-dir",
            str(self.temp_dir),
            "--include-dashboard=false",
            "--dashboard-port",
            str(dash),
            "--ray-client-server-port",
            str(client),
            "--disable-usage-stats",
        ]
        out = open(self.scratch / "ray-start.out", "wb")  # noqa: SIM115 - closed in finish
        self._handles.append(out)
        self.head = lab.start_helper(
            cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=self.env()
        )
        end = time.monotonic() + timeout
        text = ""
        while time.monotonic() < end:
            text = (self.scratch / "ray-start.out").read_text(errors="replace")
            if "Ray runtime started" in text and self.session_dir() is not None:
                return
            if self.head.poll() is not None:
                break
            time.sleep(0.2)
        raise RuntimeError(f"ray start --head did not come up: {text[-400:]}")

    def session_dir(self) -> Path | None:
        found = sorted(self.temp_dir.glob("session_2*"))
        if found:
            self.session = found[-1].name
            return found[-1]
        return None

    def logs_dir(self) -> Path | None:
        s = self.session_dir()
        return s / "logs" if s else None

    # ------------------------------------------------------------------ application
    def submit(self, lab, plan: dict, workers: int) -> None:
        """Run the driver (``python ray_app.py``) and register each task in the lab."""
        from ._runner import Proc

        plan = {
            **plan,
            "workers": workers,
            "marks": str(self.marks),
            "storage": str(self.scratch / "ray_results"),
            "tasks_dir": str(TASKS_DIR),
        }
        plan_path = self.scratch / "plan.json"
        plan_path.write_text(json.dumps(plan), encoding="utf-8")
        self.command = [
            self.python,
            str(TASKS_DIR / APP),
            "--plan",
            str(plan_path),
            "--address",
            f"127.0.0.1:{self.port}",
        ]
        if self.naming == "ray_driver":
            out = open(self.out_dir / DRIVER_LOG, "wb")  # noqa: SIM115 - closed in finish
            err = subprocess.STDOUT
            self._handles.append(out)
        else:
            out = open(self.scratch / DRIVER_OUT, "wb")  # noqa: SIM115
            err = open(self.scratch / DRIVER_ERR, "wb")  # noqa: SIM115
            self._handles += [out, err]
        self.exits = ExitEvents()
        self.driver = lab.start_helper(
            self.command,
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            env=self.env(),
            cwd=str(lab.scratch),
        )
        now = time.monotonic()
        for node in self.nodes:
            lab.procs[node] = Proc(
                node,
                DriverTask(self, node),
                Path(lab.out_dir),
                now,
                reader=lambda n=node: self.read(n),
            )
        threading.Thread(target=self._find_tasks, daemon=True, name="ray-tasks").start()

    def driver_alive(self) -> bool:
        return self.driver is not None and self.driver.poll() is None

    def _find_tasks(self) -> None:
        while len(self.pids) < len(self.nodes) and self.driver_alive():
            for i, node in enumerate(self.nodes):
                if node in self.pids:
                    continue
                with contextlib.suppress(OSError, ValueError, KeyError):
                    note = json.loads((self.marks / f"{i}.json").read_text())
                    self.notes[node] = note
                    self.pids[node] = int(note["pid"])
            time.sleep(0.05)

    @property
    def finished(self) -> set[str]:
        """The nodes whose train_loop_per_worker returned: Ray Train ends their worker actors
        once the run is over (Ray exits such a process with code 1), which failed nothing."""
        if self._finished is not None:  # noted when the run stopped (the marks go with it)
            return self._finished
        return {n for i, n in enumerate(self.nodes) if (self.marks / f"{i}.done").exists()}

    def tf_config(self, node: str) -> dict | None:
        """The TF_CONFIG Ray Train gave the node's worker (before the plan's edit)."""
        note = self.notes.get(node)
        return note["tf_config"] if note else None

    def own_port(self, node: str, timeout: float = 120.0) -> int | None:
        """The port Ray Train gave the node's TensorFlow worker (its TF_CONFIG)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            spec = self.tf_config(node)
            if spec is not None:
                addr = spec["cluster"]["worker"][spec["task"]["index"]]
                return int(addr.rsplit(":", 1)[1])
            if not self.driver_alive():
                return None
            time.sleep(0.01)
        return None

    def live_files(self, node: str) -> list[Path]:
        pid = self.pids.get(node)
        logs = self.logs_dir()
        if pid is None or logs is None:
            return []
        with contextlib.suppress(OSError):
            return [logs / n for n in worker_files(os.listdir(logs), pid)]
        return []

    def read(self, node: str) -> str:
        out = []
        for f in self.live_files(node):
            with contextlib.suppress(FileNotFoundError):
                out.append(f.read_text(errors="replace"))
        return "".join(out)

    # ------------------------------------------------------------------ events
    def cancel(self, why: str = "cancel") -> None:
        """SIGTERM to the driver (a scheduler cancelling the job, or its time limit)."""
        if self.driver_alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.driver.pid, signal.SIGTERM)
            self.signalled.append((why, signal.SIGTERM))

    def job_event(self, event: str) -> None:
        """A scheduler's time limit ends the driver (SIGTERM); at the end the driver is given
        time to finish, then the operator stops the head node and its logs are taken."""
        if event == "time_limit":
            self.cancel("time_limit")
        if event == "end":
            self.stop()

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        if self.driver is not None:
            try:
                self.driver.wait(60)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.driver.pid, signal.SIGKILL)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.driver.wait(10)
        if self.head is not None:
            pids = descendants(self.head.pid)
            if self.head.poll() is None:  # ray start --block ends its node's processes
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.head.pid, signal.SIGTERM)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.head.wait(30)
            end = time.monotonic() + 10
            while time.monotonic() < end and any(Path(f"/proc/{p}").exists() for p in pids):
                time.sleep(0.2)
            for p in pids:  # what outlived its node (by pid: this run's only)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(p, signal.SIGKILL)
            self.head_pids = pids
        time.sleep(0.5)
        self._finished = self.finished
        self._take_logs()

    def _take_logs(self) -> None:
        """Copy the session's log folder into the run folder (ray_session, ray_both) and the
        driver's stdout and stderr (ray_both), as Ray and the shell left them."""
        for h in self._handles:
            with contextlib.suppress(Exception):
                h.close()
        self._handles.clear()
        session = self.session_dir()
        if session is not None and (session / "logs").is_dir():
            dest = self.out_dir / session.name / "logs"
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(session / "logs", dest)
        if self.naming == "ray_both":
            for name in (DRIVER_OUT, DRIVER_ERR):
                with contextlib.suppress(FileNotFoundError):
                    shutil.copy2(self.scratch / name, self.out_dir / name)

    def session_files(self, node: str) -> list[str]:
        """The node's worker files in the copied session folder (relative to the run)."""
        pid = self.pids.get(node)
        if pid is None or self.session is None:
            return []
        logs = self.out_dir / self.session / "logs"
        if not logs.is_dir():
            return []
        return [f"{self.session}/logs/{n}" for n in worker_files(os.listdir(logs), pid)]

    def node_files(self, node: str) -> list[str]:
        return self.session_files(node)

    def logged_at(self, message: str) -> dict[str, str]:
        """Per node, when its training first logged a line starting with ``message`` (UTC,
        ``...Z``): from Ray Train's JSON records of each worker's Python logging
        (``logs/train/ray-train-app-worker-<worker id>.log``, their ``asctime`` in the
        workers' TZ=UTC, ``process`` the worker's pid) in the copied session folder; the
        worker's own .out / .err lines carry no time."""
        if self.session is None:
            return {}
        by_pid = {pid: node for node, pid in self.pids.items()}
        out: dict[str, str] = {}
        for path in sorted((self.out_dir / self.session / "logs" / "train").glob("*.log")):
            if not path.name.startswith("ray-train-app-worker-"):
                continue
            for line in path.read_text(errors="replace").splitlines():
                with contextlib.suppress(ValueError, KeyError, TypeError):
                    rec = json.loads(line)
                    node = by_pid.get(int(rec["process"]))
                    if node and node not in out and rec["message"].startswith(message):
                        day, clock = rec["asctime"].split(" ")
                        hms, ms = clock.split(",")
                        out[node] = f"{day}T{hms}.{ms}000Z"
        return out

    def finish(self, truth: dict) -> None:
        """Settle the run's files in ``truth``. With the driver's console only, it is every
        task's one file: each evidence line is pointed at the console's line that holds it,
        and the session folder (read for the evidence and versions) is removed. Otherwise
        each task's files are its worker process's .out and .err; every other file of the
        run (the driver's output, Ray's own logs) is a job-level file."""
        if self.exits is not None:
            self.exits.close()
        truth["ray_driver_exit_code"] = self.driver.returncode if self.driver else None
        truth["ray_driver_command"] = " ".join(
            a if "/" not in a else os.path.basename(a) for a in self.command
        )
        truth["ray_session"] = self.session
        done = sorted(self.finished)
        if done:
            truth["notes"] += (
                f" {', '.join(done)}: train_loop_per_worker returned; Ray Train then ended the "
                "worker actor (Ray exits its process with code 1)."
            )
        truth["ray_worker_pids"] = dict(self.pids)
        if self.naming == "ray_driver":
            path = self.out_dir / DRIVER_LOG
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            for ev in truth["evidence"]:
                pid = self.pids.get(ev["node"])
                no = driver_line_of(lines, pid, ev["text"])
                if no is None:
                    raise RuntimeError(f"{ev['node']}'s line is not in {DRIVER_LOG}: {ev['text']}")
                ev["file"], ev["line_no"], ev["text"] = DRIVER_LOG, no, lines[no - 1][:400]
            for node, files in truth["node_files"].items():
                truth["node_files"][node] = [DRIVER_LOG] if files else []
            if self.session:
                shutil.rmtree(self.out_dir / self.session, ignore_errors=True)
        mine = {f for files in truth["node_files"].values() for f in files}
        truth["launcher_files"] = sorted(
            p.relative_to(self.out_dir).as_posix()
            for p in self.out_dir.rglob("*")
            if p.is_file()
            and p.name != "truth.json"
            and p.relative_to(self.out_dir).as_posix() not in mine
        )
        shutil.rmtree(self.temp_dir, ignore_errors=True)
