"""Apache Spark's side of the lab's ``mwms_spark`` style: a real Spark standalone cluster.

The launcher does not play Spark: it starts pyspark's bundled Spark (4.x, Java 17) as an
operator would, on 127.0.0.1 with free ports: the master and the worker daemons through
``sbin/spark-daemon.sh start`` (what ``start-master.sh`` / ``start-worker.sh`` run; pyspark
ships spark-daemon.sh, not those two), each daemon's log4j console output in
``$SPARK_LOG_DIR/spark-<user>-<class>-<instance>-<host>.out``, the workers' ``--work-dir``
in the run folder. The driver is ``spark-submit --master spark://127.0.0.1:<port>
spark_app.py`` (client mode), its stdout and stderr captured as a scheduler captures them;
the application (``tasks/spark_app.py``) runs one barrier stage of one partition per
TensorFlow worker, and each barrier task starts its TensorFlow worker as a child of the
executor's Python worker (``tasks/mwms_spark.py``), whose output Spark copies into the
executor's ``work/<app-id>/<executor-id>/stderr``. Spark's default log4j profile is kept.

Three layouts (a third of the cells each):

* **spark_executors**: one worker daemon with 3 cores; ``spark.executor.cores=1`` and
  ``spark.cores.max=3`` give one executor per task; the daemons' logs under ``logs/``, the
  driver's stdout and stderr in ``spark-submit.out`` and ``spark-submit.err``.
* **spark_workers**: three worker daemons of one core each (``SPARK_WORKER_INSTANCES``
  style: instances 1..3) and Spark's default executor sizing (an executor takes every core
  of its worker): one executor per worker, one task each; the same files.
* **spark_submit_log**: as spark_executors, but only the application's files are kept: the
  executors' work folders and the driver's output in one ``spark-submit.log`` (``> log
  2>&1``); no daemon log.

The launcher finds each TensorFlow worker among the executors' descendants by the
environment its barrier task gave it, the executor that hosts it from its ancestors
(``CoarseGrainedExecutorBackend --executor-id N``), and its exit status from the kernel's
process events connector (as for mpirun's ranks). The files are never renamed: which
executor holds which task is for the reader to find out. No TensorFlow import here.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from ._runner import TASKS_DIR, free_ports
from .mpi import DriverTask, ExitEvents

NAMINGS = ("spark_executors", "spark_workers", "spark_submit_log")
LOG_DIR = "logs"  # $SPARK_LOG_DIR (the daemons' .out files)
WORK_DIR = "work"  # the workers' --work-dir
DRIVER_OUT, DRIVER_ERR, DRIVER_LOG = "spark-submit.out", "spark-submit.err", "spark-submit.log"
MASTER = "org.apache.spark.deploy.master.Master"
WORKER = "org.apache.spark.deploy.worker.Worker"
APP = "spark_app.py"
OUTPUT_FORMS = {
    "spark_executors": "one Spark worker daemon of 3 cores, spark.executor.cores=1 and "
    "spark.cores.max=3 (one executor per task); each executor's work/<app-id>/<executor-id>/"
    "stdout and stderr, the master's and worker's logs/spark-<user>-<class>-<n>-<host>.out, "
    f"spark-submit's stdout and stderr in {DRIVER_OUT} and {DRIVER_ERR}",
    "spark_workers": "three Spark worker daemons of 1 core each, Spark's default executor "
    "sizing (one executor per worker, one task each); each executor's work/<app-id>/"
    "<executor-id>/stdout and stderr, the master's and the three workers' logs/spark-<user>-"
    f"<class>-<n>-<host>.out, spark-submit's stdout and stderr in {DRIVER_OUT} and {DRIVER_ERR}",
    "spark_submit_log": "one Spark worker daemon of 3 cores, one executor per task; only the "
    "application's files: each executor's work/<app-id>/<executor-id>/stdout and stderr, and "
    f"spark-submit's output in one {DRIVER_LOG} (> {DRIVER_LOG} 2>&1); no daemon log",
}
#: The executor JVM's command line names its id and its application.
EXECUTOR_RE = re.compile(r"--executor-id\0([^\0]+)\0.*--app-id\0([^\0]+)", re.S)


def spark_home() -> Path | None:
    """pyspark's bundled Spark (bin/, sbin/, jars/), without importing pyspark."""
    spec = importlib.util.find_spec("pyspark")
    if spec is None or not spec.origin:
        return None
    return Path(spec.origin).parent


def check() -> str | None:
    """None when Spark can run here, else what is missing."""
    home = spark_home()
    if home is None or not (home / "sbin" / "spark-daemon.sh").exists():
        return "pyspark is missing (pip install pyspark; it bundles Spark)"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "java is missing (Spark 4 needs Java 17+)"
    return None


def workers_of(naming: str) -> list[int]:
    """The cores of each worker daemon."""
    return [1, 1, 1] if naming == "spark_workers" else [3]


def submit_conf(naming: str) -> list[str]:
    """spark-submit's options beyond --master: one executor of one core per task, or
    Spark's default sizing (an executor per worker, every core of it)."""
    if naming == "spark_workers":
        return []
    return ["--conf", "spark.executor.cores=1", "--conf", "spark.cores.max=3"]


def daemon_log(cls: str, instance: int, user: str, host: str) -> str:
    """What spark-daemon.sh names a daemon's log (``$SPARK_LOG_DIR/...``)."""
    return f"{LOG_DIR}/spark-{user}-{cls}-{instance}-{host}.out"


def executor_files(app_id: str, executor: str) -> list[str]:
    """An executor's files in its worker's work folder (what the worker's ExecutorRunner
    writes: the executor's stdout and stderr)."""
    return [f"{WORK_DIR}/{app_id}/{executor}/stdout", f"{WORK_DIR}/{app_id}/{executor}/stderr"]


def driver_files(naming: str) -> list[str]:
    return [DRIVER_LOG] if naming == "spark_submit_log" else [DRIVER_OUT, DRIVER_ERR]


def executor_of(cmdlines: list[bytes]) -> tuple[str, str] | None:
    """(executor id, app id) of the first executor JVM among a process's ancestors' command
    lines (``\\0``-separated, nearest first)."""
    for cmd in cmdlines:
        if b"CoarseGrainedExecutorBackend" in cmd:
            m = EXECUTOR_RE.search(cmd.decode(errors="replace"))
            if m:
                return m.group(1), m.group(2)
    return None


def _ppid(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2 :].split()[1])


def _environ(pid: int) -> dict[str, str]:
    out = {}
    for kv in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
        k, sep, v = kv.partition(b"=")
        if sep:
            out[k.decode(errors="replace")] = v.decode(errors="replace")
    return out


class Spark:
    """One run's Spark cluster, its application and the TensorFlow workers it runs."""

    def __init__(self, out_dir: Path, naming: str, seed: int, nodes: list[str], scratch: Path):
        # absolute: the daemons and the driver run in the scratch folder
        self.out_dir, self.naming, self.seed = Path(out_dir).resolve(), naming, seed
        self.nodes = list(nodes)  # partition i runs nodes[i]
        self.scratch = Path(scratch)
        self.run_id = f"{os.getpid()}-{seed}-{time.monotonic_ns()}"
        keep_daemon_logs = naming != "spark_submit_log"
        self.log_dir = (self.out_dir if keep_daemon_logs else self.scratch) / LOG_DIR
        self.pid_dir = self.scratch / "pids"
        self.work_dir = self.out_dir / WORK_DIR
        self.home = spark_home()
        self.user = os.environ.get("USER") or __import__("getpass").getuser()
        self.host = os.uname().nodename
        self.master_port = 0
        self.submit: subprocess.Popen | None = None
        self.exits: ExitEvents | None = None
        self.pids: dict[str, int] = {}
        self.envs: dict[str, dict[str, str]] = {}
        self.executors: dict[str, tuple[str, str]] = {}  # node -> (executor id, app id)
        self.executor_pids: dict[str, int] = {}  # node -> its executor JVM's pid
        self.signalled: list[tuple[str, int]] = []
        self.daemons: list[tuple[str, int]] = []
        self._ended_at: float | None = None
        self._handles: list = []

    # ------------------------------------------------------------------ cluster
    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        for k in ("TF_CONFIG", "PYTHONPATH", "SPARK_NO_DAEMONIZE"):
            env.pop(k, None)
        rest = free_ports(1)[0]
        env.update(
            {
                "SPARK_HOME": str(self.home),
                "SPARK_LOG_DIR": str(self.log_dir),
                "SPARK_PID_DIR": str(self.pid_dir),
                "SPARK_LOCAL_IP": "127.0.0.1",
                "SPARK_MASTER_OPTS": f"-Dspark.master.rest.port={rest}",
                "PYSPARK_PYTHON": sys.executable,
                "PYSPARK_DRIVER_PYTHON": sys.executable,
                "PATH": f"{Path(sys.executable).parent}:{env.get('PATH', '')}",
                "TZ": "UTC",
            }
        )
        return env

    def _daemon(self, action: str, cls: str, instance: int, args: list[str]) -> None:
        subprocess.run(
            [str(self.home / "sbin" / "spark-daemon.sh"), action, cls, str(instance), *args],
            env=self.env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            cwd=str(self.scratch),
            timeout=60,
            check=False,
        )

    def _pid_file(self, cls: str, instance: int) -> Path:
        return self.pid_dir / f"spark-{self.user}-{cls}-{instance}.pid"

    def start_cluster(self, timeout: float = 90.0) -> None:
        """The master, then the workers (as start-master.sh and start-worker.sh do), and wait
        until the master registered every worker."""
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.work_dir.mkdir(parents=True, exist_ok=True)
        cores = workers_of(self.naming)
        self.master_port, web, *webs = free_ports(2 + len(cores))
        self._daemon(
            "start",
            MASTER,
            1,
            ["--host", "127.0.0.1", "--port", str(self.master_port), "--webui-port", str(web)],
        )
        self.daemons.append((MASTER, 1))
        for i, (n, wport) in enumerate(zip(cores, webs, strict=True), 1):
            self._daemon(
                "start",
                WORKER,
                i,
                [
                    "--webui-port",
                    str(wport),
                    "--host",
                    "127.0.0.1",
                    self.master_url,
                    "--cores",
                    str(n),
                    "--memory",
                    f"{n}g",
                    "--work-dir",
                    str(self.work_dir),
                ],
            )
            self.daemons.append((WORKER, i))
        log = self.log_dir / Path(daemon_log(MASTER, 1, self.user, self.host)).name
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with contextlib.suppress(FileNotFoundError):
                if log.read_text(errors="replace").count("Registering worker") >= len(cores):
                    return
            time.sleep(0.2)
        raise RuntimeError(f"the Spark master did not register {len(cores)} workers")

    @property
    def master_url(self) -> str:
        return f"spark://127.0.0.1:{self.master_port}"

    # ------------------------------------------------------------------ application
    def submit_app(self, lab, plan: dict, partitions: int) -> None:
        """spark-submit the application (client mode) and register each task in the lab."""
        from ._runner import Proc

        plan = {**plan, "run_id": self.run_id, "script": str(TASKS_DIR / "mwms_spark.py")}
        plan_path = self.scratch / "plan.json"
        plan_path.write_text(json.dumps(plan), encoding="utf-8")
        cmd = [
            str(self.home / "bin" / "spark-submit"),
            "--master",
            self.master_url,
            *submit_conf(self.naming),
            str(TASKS_DIR / APP),
            "--plan",
            str(plan_path),
            "--partitions",
            str(partitions),
        ]
        self.command = cmd
        if self.naming == "spark_submit_log":
            out = open(self.out_dir / DRIVER_LOG, "wb")  # noqa: SIM115 - closed in finish
            err = subprocess.STDOUT
            self._handles.append(out)
        else:
            out = open(self.out_dir / DRIVER_OUT, "wb")  # noqa: SIM115
            err = open(self.out_dir / DRIVER_ERR, "wb")  # noqa: SIM115
            self._handles += [out, err]
        self.exits = ExitEvents()
        self.submit = lab.start_helper(
            cmd,
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
                Path(lab.out_dir) / WORK_DIR,
                now,
                reader=lambda n=node: self.read(n),
            )
        threading.Thread(target=self._find_tasks, daemon=True, name="spark-tasks").start()

    def driver_alive(self) -> bool:
        return self.submit is not None and self.submit.poll() is None

    def _find_tasks(self) -> None:
        marker = f"TFDIAG_LAB_SPARK_RUN={self.run_id}".encode()
        while len(self.pids) < len(self.nodes) and self.driver_alive():
            for entry in os.listdir("/proc"):
                if not entry.isdigit():
                    continue
                pid = int(entry)
                if pid in self.pids.values():
                    continue
                try:
                    raw = Path(f"/proc/{pid}/environ").read_bytes()
                    if marker not in raw.split(b"\0"):
                        continue
                    env = _environ(pid)
                    node = self.nodes[int(env["TFDIAG_LAB_SPARK_PARTITION"])]
                    chain, cur = [], pid
                    for _ in range(6):
                        cur = _ppid(cur)
                        if cur <= 1:
                            break
                        chain.append((cur, Path(f"/proc/{cur}/cmdline").read_bytes()))
                except (OSError, ValueError, KeyError, IndexError):
                    continue
                if node in self.pids:
                    continue  # a later attempt (not expected: a barrier ResultStage)
                self.pids[node] = pid
                self.envs[node] = env
                found = executor_of([c for _, c in chain])
                if found:
                    self.executors[node] = found
                    self.executor_pids[node] = next(
                        p for p, c in chain if b"CoarseGrainedExecutorBackend" in c
                    )
            time.sleep(0.05)

    def tf_config(self, node: str) -> dict | None:
        raw = self.envs.get(node, {}).get("TF_CONFIG")
        return json.loads(raw) if raw else None

    def own_port(self, node: str, timeout: float = 90.0) -> int | None:
        """The port the node's barrier task gave its TensorFlow worker (its TF_CONFIG)."""
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

    def node_files(self, node: str) -> list[str]:
        if node not in self.executors:
            return []
        return executor_files(self.executors[node][1], self.executors[node][0])

    def read(self, node: str) -> str:
        out = []
        for f in self.node_files(node):
            with contextlib.suppress(FileNotFoundError):
                out.append((self.out_dir / f).read_text(errors="replace"))
        return "".join(out)

    # ------------------------------------------------------------------ events
    def cancel(self, why: str = "cancel") -> None:
        """SIGTERM to spark-submit: its shutdown hook stops the SparkContext."""
        if self.driver_alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.submit.pid, signal.SIGTERM)
            self.signalled.append((why, signal.SIGTERM))

    def kill_executor(self, node: str) -> int:
        """SIGKILL to the executor JVM that hosts ``node`` (an executor lost)."""
        pid = self.executor_pids[node]
        os.kill(pid, signal.SIGKILL)
        self.signalled.append((f"executor {self.executors[node][0]}", signal.SIGKILL))
        return pid

    def job_event(self, event: str) -> None:
        """A scheduler's time limit kills spark-submit (SIGTERM); at the end the driver is
        given time to finish, then the operator stops the daemons (spark-daemon.sh stop)."""
        if event == "time_limit":
            self.cancel("time_limit")
        if event == "end":
            self.stop()

    def stop(self) -> None:
        if self.submit is not None:
            try:
                self.submit.wait(60)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.submit.pid, signal.SIGKILL)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.submit.wait(10)
        for cls, instance in reversed(self.daemons):  # the workers, then the master
            pid_file = self._pid_file(cls, instance)
            try:
                pid = int(pid_file.read_text().split()[0])
            except (OSError, ValueError, IndexError):
                continue
            self._daemon("stop", cls, instance, [])
            end = time.monotonic() + 20
            while Path(f"/proc/{pid}").exists() and time.monotonic() < end:
                time.sleep(0.1)
            if Path(f"/proc/{pid}").exists():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        self.daemons.clear()
        time.sleep(0.5)

    def finish(self, truth: dict) -> None:
        """Settle the run's files in ``truth``: each task's executor files; every other file
        of the run (the driver's output, the daemons' logs, executors that held no task) is
        a job-level file."""
        for h in self._handles:
            with contextlib.suppress(Exception):
                h.close()
        if self.exits is not None:
            self.exits.close()
        truth["spark_submit_exit_code"] = self.submit.returncode if self.submit else None
        truth["spark_submit_command"] = " ".join(
            a if "/" not in a or a.startswith("spark://") else os.path.basename(a)
            for a in self.command
        )
        truth["spark_executors"] = {n: e for n, (e, _app) in self.executors.items()}
        apps = sorted({app for _e, app in self.executors.values()})
        truth["spark_app_id"] = apps[0] if len(apps) == 1 else apps
        truth["spark_daemon_logs"] = self.naming != "spark_submit_log"
        mine = {f for files in truth["node_files"].values() for f in files}
        truth["launcher_files"] = sorted(
            p.relative_to(self.out_dir).as_posix()
            for p in self.out_dir.rglob("*")
            if p.is_file()
            and p.name != "truth.json"
            and p.relative_to(self.out_dir).as_posix() not in mine
        )
