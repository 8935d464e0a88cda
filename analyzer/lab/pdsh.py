"""pdsh's side of the lab's ``mwms_pdsh`` style: one real pdsh runs every task.

The launcher does not play pdsh: it writes the job's spec file (the cluster and each task's
own settings, ``job.json``) and runs the distribution's own ``pdsh`` (2.34, ``apt-get install
pdsh``, a recording-only tool, not a tfdiag dependency) with its ``exec`` rcmd module, so no
ssh is needed: every "host" of ``-w worker[0-2]`` is a local command in which pdsh puts the
host's name for ``%h``::

    pdsh -R exec -w worker[0-2] bash -c 'python -u .../mwms_pdsh.py --spec job.json --host %h ...'

Each host is one task of the MultiWorkerMirroredStrategy job (``tasks/mwms_training.py``, the
custom training loop of mwms_ctl / mwms_honcho, three workers, worker 0 hosting the
coordination service); ``tasks/mwms_pdsh.py`` builds its TF_CONFIG from the host name
(``workerN`` is worker task N) and the spec's cluster. A task started late waits in the script
(the spec's ``delay``); a missing task is a host left out of ``-w`` (its address still in the
cluster).

pdsh prefixes every line of a host's output with ``<host>: `` and prints its own lines as
``pdsh@<hostname>: <host>: ...`` (``bash exited with exit code N``, ``bash killed by signal
N``). It stops nothing when one host's command fails: the others run on until they end. How
the job ends is pdsh's: it exits once every command has; a job cancelled as a whole
(preempt_job) is SIGTERM to every process of the job at once, pdsh and its commands, as a batch
system's cancel signals the job's cgroup (pdsh alone, on SIGTERM, dies at once and leaves its
commands training on with nobody reading their output: the lab saw them finish); the job's
time limit
and an operator ending a job that outlived its training are two Ctrl-C's at pdsh's terminal
(SIGINT twice within a second: pdsh prints the status of each host, sends SIGINT to every
command still running and aborts). The run's output is pdsh's, one layout per run
(:data:`NAMINGS`, a third of the cells each):

- ``pdsh_log``: ``pdsh ... > pdsh.log 2>&1``: every host's lines behind ``<host>: ``, pdsh's own
  ``pdsh@<hostname>: `` lines among them;
- ``pdsh_dshbak``: ``pdsh ... 2>&1 | dshbak [-c] > pdsh.log``: the same grouped by dshbak
  (pdsh's own tool) into one section per host (its name between two rulers, the lines without
  the prefix), pdsh's own lines in a section of their own (``pdsh@<hostname>``); ``-c`` on every
  other run (hosts with identical output coalesced);
- ``pdsh_tee``: ``pdsh.log`` as in ``pdsh_log``, and each host's output also teed by its
  command into ``logs/<host>.log`` (``... 2>&1 | tee logs/%h.log``).

The tasks are pdsh's grandchildren (its exec module's ``bash``): each one's pid is found by its
``--host`` among pdsh's descendants, its end read from the kernel's exit events
(:class:`analyzer.lab.mpi.ExitEvents`). Nothing of the launcher goes into the run folder but
what pdsh, dshbak and the tasks' tee wrote; the command and the spec are kept in truth.json.
No TensorFlow import here.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

from analyzer.lab._runner import first_existing

from .merged import MergedOutput, argument_after, proc_argv
from .mpi import ExitEvents, LauncherTask
from .parallel import common_args, spec_json

ENV = "TFDIAG_LAB_PDSH"
CANDIDATES = ("/usr/bin/pdsh", "/usr/local/bin/pdsh")
DSHBAK = ("/usr/bin/dshbak", "/usr/local/bin/dshbak")
NAMINGS = ("pdsh_log", "pdsh_dshbak", "pdsh_tee")
MAIN_LOG = "pdsh.log"
TEE_DIR = "logs"
SPEC = "job.json"  # in the lab's scratch folder (kept in truth.json)
RAW_DIR = "_pdsh_raw"  # the lab's per-task copies of pdsh's lines (removed at the end)
WRAPPER = "mwms_pdsh.py"
END_WAIT = 30.0  # the operator aborts a pdsh still running this long after the job's end
OUTPUT_FORMS = {
    "pdsh_log": f"pdsh -R exec -w worker[0-2] ... > {MAIN_LOG} 2>&1: every host's lines behind "
    "'<host>: ' and pdsh's own 'pdsh@<hostname>: <host>: ...' lines in one file",
    "pdsh_dshbak": f"pdsh -R exec -w worker[0-2] ... 2>&1 | dshbak [-c] > {MAIN_LOG}: the same "
    "grouped per host by dshbak (a section per host between rulers, the lines without their "
    "prefix; pdsh's own lines in a 'pdsh@<hostname>' section)",
    "pdsh_tee": f"pdsh -R exec -w worker[0-2] ... > {MAIN_LOG} 2>&1, and each host's output "
    f"also teed by its command into {TEE_DIR}/<host>.log (... 2>&1 | tee {TEE_DIR}/%h.log)",
}
RULER = "----------------"


def find() -> str | None:
    """The pdsh executable."""
    return first_existing(ENV, CANDIDATES)


def check() -> str | None:
    """None when pdsh (and dshbak) can run here, else what is missing."""
    if find() is None:
        return f"pdsh is missing (apt-get install pdsh; or set {ENV})"
    if not any(Path(p).exists() for p in DSHBAK):
        return "dshbak is missing (apt-get install pdsh)"
    return None


def host(node: str) -> str:
    """pdsh's host name of a task: ``worker:1`` is ``worker1``."""
    job, index = node.split(":")
    return f"{job}{index}"


def host_list(nodes: list[str]) -> str:
    """pdsh's -w of the tasks that run: ``worker[0-2]``, ``worker[0,2]``."""
    idx = [int(n.split(":")[1]) for n in nodes]
    job = nodes[0].split(":")[0]
    if len(idx) == 1:
        return f"{job}{idx[0]}"
    if idx == list(range(idx[0], idx[-1] + 1)):
        return f"{job}[{idx[0]}-{idx[-1]}]"
    return f"{job}[{','.join(str(i) for i in idx)}]"


def coalesce(seed: int) -> bool:
    """Every other dshbak run: ``dshbak -c``."""
    return (seed // len(NAMINGS)) % 2 == 1


def expand(name: str) -> list[str]:
    """dshbak's section header as host names (``worker[0,2]`` -> worker0, worker2)."""
    m = re.match(r"^(\S*?)\[([\d,\-]+)\]$", name)
    if not m:
        return [n.strip() for n in name.split(",")]
    out = []
    for part in m.group(2).split(","):
        a, _, b = part.partition("-")
        out += [f"{m.group(1)}{i}" for i in range(int(a), int(b or a) + 1)]
    return out


def dshbak_where(text: str, hosts: dict[str, str]) -> dict[str, list[int]]:
    """The file line of each host's line in dshbak's output (its sections in order)."""
    where: dict[str, list[int]] = {n: [] for n in hosts.values()}
    lines = text.splitlines()
    k, current = 0, []
    while k < len(lines):
        if lines[k] == RULER and k + 2 < len(lines) and lines[k + 2] == RULER:
            current = [hosts[h] for h in expand(lines[k + 1]) if h in hosts]
            k += 3
            continue
        for node in current:
            where[node].append(k + 1)
        k += 1
    return where


class Pdsh(MergedOutput):
    """One job's pdsh: its command, its hosts, its output."""

    def __init__(self, out_dir: Path, naming: str, seed: int, nodes: list[str], scratch: Path):
        self.out_dir, self.naming = Path(out_dir).resolve(), naming
        self.nodes = list(nodes)
        self.scratch = Path(scratch)
        self.tee = naming == "pdsh_tee"
        self.dshbak = naming == "pdsh_dshbak"
        self.coalesce = self.dshbak and coalesce(seed)
        self.exe = find()
        self.tasks: list[dict] = []
        self.cluster: dict = {}
        self.popen: subprocess.Popen | None = None
        self.bak: subprocess.Popen | None = None
        self.pids: dict[str, int] = {}
        self.exits: ExitEvents | None = None
        self._ended_at: float | None = None
        self.path = self.out_dir / MAIN_LOG
        self.hosts = {host(n): n for n in self.nodes}
        self.where: dict[str, list[int]] = {n: [] for n in self.nodes}
        self.lines = 0
        self.spec: dict = {}
        self.command: list[str] = []
        self.signalled: list[tuple[str, str]] = []
        self.reader: threading.Thread | None = None
        self._done = False
        self.killed = False  # pdsh itself SIGKILLed by the lab's end of the run
        self.cancelled: dict[str, str] = {}  # the tasks the job's cancel sent SIGTERM
        self.own: list[str] = []  # pdsh's own lines (no host's prefix), as pdsh printed them

    # ------------------------------------------------------------------ the job
    def add(self, node, python, script, args, env, *, cluster, delay=0.0) -> None:
        self.cluster = {j: list(a) for j, a in cluster.items()}
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

    def build_command(self, spec: Path) -> list[str]:
        t0 = self.tasks[0]
        wrapper = str(Path(t0["script"]).with_name(WRAPPER))
        job_cmd = (
            f"{t0['python']} -u {wrapper} --spec {spec} --host %h "
            + " ".join(shlex.quote(a) for a in common_args(self.tasks))
        ).strip()
        if self.tee:
            job_cmd += f" 2>&1 | tee {TEE_DIR}/%h.log"
        hosts = host_list([t["node"] for t in self.tasks])
        return [self.exe, "-R", "exec", "-w", hosts, "bash", "-c", job_cmd]

    def env(self, extra: dict) -> dict[str, str]:
        env = dict(os.environ)
        for k in ("TF_CONFIG", "PYTHONPATH", "VIRTUAL_ENV", "PDSH_RCMD_TYPE", "WCOLL"):
            env.pop(k, None)
        env.update(
            {
                "PYTHONUNBUFFERED": "1",
                "CUDA_VISIBLE_DEVICES": "",
                "TFDIAG_LAB_STOP_FILE": "",  # no goodbye: pdsh's commands end on their own
                "OMP_NUM_THREADS": "1",
                "TZ": "UTC",
                **extra,
            }
        )
        return env

    def launch(self, lab, extra_env: dict) -> None:
        from ._runner import Proc

        self.spec = spec_json(self.tasks, self.cluster, self.tasks[0]["python"])
        spec_path = self.scratch / SPEC
        spec_path.write_text(json.dumps(self.spec, indent=1), encoding="utf-8")
        self.command = self.build_command(spec_path)
        if self.tee:
            (self.out_dir / TEE_DIR).mkdir(parents=True, exist_ok=True)
        (self.out_dir / RAW_DIR).mkdir(parents=True, exist_ok=True)
        for t in self.tasks:
            (self.out_dir / RAW_DIR / self._raw(t["node"])).write_bytes(b"")
        self.path.write_bytes(b"")
        self.exits = ExitEvents()
        env = self.env(extra_env)
        self.popen = lab.start_helper(
            self.command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=str(self.out_dir),  # tee's relative logs/ land in the run folder
        )
        if self.dshbak:
            bak = next(p for p in DSHBAK if Path(p).exists())
            self.bak = lab.start_helper(
                [bak, "-c"] if self.coalesce else [bak],
                stdin=subprocess.PIPE,
                stdout=open(self.path, "wb"),  # noqa: SIM115 (dshbak's own stdout)
                stderr=subprocess.STDOUT,
                env=env,
                cwd=str(self.out_dir),
            )
        now = time.monotonic()
        for t in self.tasks:
            node = t["node"]
            lab.procs[node] = Proc(
                node,
                LauncherTask(self, node, f"pdsh host {host(node)}"),
                Path(lab.out_dir) / (self.node_files(node)[0] if self.tee else MAIN_LOG),
                now,
                reader=lambda n=node: self.read(n),
            )
        self.reader = threading.Thread(target=self._copy, daemon=True, name="pdsh-output")
        self.reader.start()
        lab._tees.append(self.reader)
        threading.Thread(target=self._find_tasks, daemon=True, name="pdsh-hosts").start()

    @staticmethod
    def _raw(node: str) -> str:
        return node.replace(":", "-") + ".log"

    def _open_output(self):
        return None if self.dshbak else super()._open_output()  # (dshbak writes pdsh.log)

    def _output_closed(self, fd: int) -> None:
        if self.bak is not None:
            with contextlib.suppress(OSError):
                self.bak.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.bak.wait(20)

    def _line(self, out, line: bytes) -> None:
        if out is not None:
            out.write(line)
        elif self.bak is not None:
            with contextlib.suppress(OSError):
                self.bak.stdin.write(line)
                self.bak.stdin.flush()
        self.lines += 1
        for h, node in self.hosts.items():
            prefix = f"{h}: ".encode()
            if line.startswith(prefix):
                with open(self.out_dir / RAW_DIR / self._raw(node), "ab") as f:
                    f.write(line[len(prefix) :].rstrip(b"\n") + b"\n")
                self.where[node].append(self.lines)
                return
        self.own.append(line.decode("utf-8", "replace").rstrip("\n"))

    def _node_of(self, pid: int) -> str | None:
        return self.hosts.get(argument_after(proc_argv(pid), b"--host") or "")

    def node_files(self, node: str) -> list[str]:
        """The files of a task before ``finish`` (the evidence is looked for in them)."""
        if self.tee:
            return [f"{TEE_DIR}/{host(node)}.log"]
        return [f"{RAW_DIR}/{self._raw(node)}"]

    def read(self, node: str) -> str:
        with contextlib.suppress(FileNotFoundError):
            return (self.out_dir / self.node_files(node)[0]).read_text(errors="replace")
        return ""

    # ------------------------------------------------------------------ events
    def terminate(self, why: str = "cancel") -> None:
        """The job cancelled as a batch system cancels it: SIGTERM to every process of the job
        at once, pdsh and its commands (pdsh alone dies and leaves its commands training on,
        their output unread: no cancel at all)."""
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.popen.pid, signal.SIGTERM)
            self.signalled.append((why, "SIGTERM"))
        for node, pid in self.pids.items():
            if Path(f"/proc/{pid}").exists():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGTERM)
                self.cancelled.setdefault(node, why)

    def interrupt(self, why: str) -> None:
        """Two Ctrl-C's at pdsh's terminal within a second: pdsh prints each host's status,
        sends SIGINT to every command still running and aborts."""
        if not self.alive():
            return
        for _ in range(2):
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.popen.pid, signal.SIGINT)
            time.sleep(0.4)
        self.signalled.append((why, "SIGINT x2"))

    def job_event(self, event: str) -> None:
        """The job's time limit: the operator aborts pdsh (Ctrl-C twice); the job's end: pdsh
        exits once every command has, else the operator aborts it after END_WAIT."""
        if event == "time_limit":
            self.interrupt("time_limit")
            return
        if event != "end" or self._done:
            return
        self._done = True
        self._end(END_WAIT, lambda: self.interrupt("end"), 15)

    def stopped_by_pdsh(self) -> dict[str, str]:
        """The tasks stopped from outside the job: still running when the operator aborted
        pdsh (its 'sending signal 2 to <host>' lines), or when the job was cancelled."""
        out: dict[str, str] = {n: f"{w}: SIGTERM" for n, w in self.cancelled.items()}
        for m in re.finditer(r"sending signal (\d+) to (\S+) \[", "\n".join(self.own)):
            node = self.hosts.get(m.group(2))
            if node is not None:
                out.setdefault(node, f"signal {m.group(1)}")
        return out

    def finish(self, truth: dict) -> None:
        """pdsh.log is the launcher's file; without tee it is every task's only file too
        (the lab's per-task copies removed, the evidence pointed at pdsh.log's lines)."""
        if self.reader is not None:
            self.reader.join(30)
        if self.exits is not None:
            self.exits.close()
        truth["launcher_files"] = [MAIN_LOG]
        own = list(self.own)
        truth["pdsh"] = {
            "output": OUTPUT_FORMS[self.naming],
            "version": self.version(),
            "dshbak_c": self.coalesce if self.dshbak else None,
            "command": " ".join(
                os.path.basename(w) if w.startswith("/") else w for w in self.command[:-1]
            )
            + " "
            + shlex.quote(self.command[-1]),
            "rcmd": "exec",
            "hostname": socket.gethostname(),
            "hosts": {
                t["node"]: {"host": host(t["node"]), "pid": self.pids.get(t["node"])}
                for t in self.tasks
            },
            "pdsh_own_lines": own,
            "stopped_by_pdsh": self.stopped_by_pdsh(),
            "exit_code": self.popen.returncode if self.popen is not None else None,
            "signals_to_pdsh": [f"{w}: {s}" for w, s in self.signalled],
            "pdsh_sigkilled_by_lab": self.killed,
            "spec": self.spec,
        }
        if not self.tee:
            from ._runner import merge_into_job_file

            where = self.where
            if self.dshbak:
                where = dshbak_where(self.path.read_text(errors="replace"), self.hosts)
            merge_into_job_file(
                truth, self.path, where, lambda _n, line, t: t[:60] in line, self.out_dir
            )
        import shutil

        shutil.rmtree(self.out_dir / RAW_DIR, ignore_errors=True)

    def version(self) -> str | None:
        with contextlib.suppress(Exception):
            r = subprocess.run([self.exe, "-V"], capture_output=True, text=True, timeout=20)
            return (r.stdout or r.stderr).splitlines()[0].strip() or None
        return None
