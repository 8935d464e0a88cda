"""Kubernetes' side of the lab's ``tfjob_k8s`` style: the launcher plays the Kubeflow
training-operator, kubelet and the container runtime for one TFJob.

What each part writes, read from its sources:

* **TF_CONFIG** as the training-operator writes it (kubeflow/training-operator
  ``pkg/controller.v1/tensorflow/tensorflow.go``, ``genTFConfigJSONStr`` / ``genClusterSpec``):
  ``json.Marshal`` of ``{"cluster": {<replica>: [...]}, "task": {"type", "index"},
  "environment": "cloud"}`` (compact, map keys sorted), every address the replica's headless
  service ``<job>-<replica>-<i>.<namespace>.svc:<port>`` (``jobcontroller.GenGeneralName``; the
  evaluator is left out of the cluster). The pod of a replica has the same name
  ``<job>-<replica>-<i>``, and its hostname is that name (each task runs in its own UTS
  namespace, ``unshare --uts``, with ``hostname <pod>``; kubelet also sets ``HOSTNAME``).
* **The container's log** as containerd's CRI logger writes it (containerd
  ``pkg/cri/io/logger.go``, ``redirectLogs``): stdout and stderr are read separately, each line
  as ``<time.Now() in RFC3339Nano> <stdout|stderr> <F|P> <content>\\n`` (RFC3339Nano drops the
  fraction's trailing zeros; ``\\r\\n`` and ``\\n`` stripped from the content); a line longer than
  ``max_container_log_line_size`` (16384) is cut into ``P`` (partial) records with an ``F``
  (full) record last, and a last line with no newline when the stream ends is one ``P``
  record. The file is where kubelet lays it out under /var/log/pods:
  ``pods/<namespace>_<pod>_<pod-uid>/<container>/<restart-count>.log`` (container
  ``tensorflow``, the training-operator's default container name; restart count 0), or, for a
  third of the runs, under the names kubelet links them by in /var/log/containers
  (``containers/<pod>_<namespace>_<container>-<container-id>.log``, kubelet's
  ``legacyLogSymlink``: what a node's log collector reads; the same lines).
* **kubectl logs** for a third of the runs, instead, one file as
  ``kubectl logs -f -l training.kubeflow.org/job-name=<job> --prefix --timestamps --tail=-1``
  prints it (kubernetes ``staging/src/k8s.io/kubectl/pkg/cmd/logs/logs.go``): with ``-f`` and
  several pods every pod's stream is read at once and written line by line as it comes
  (``parallelConsumeRequest``; without ``-f`` the pods would come one after the other), each
  line prefixed ``[pod/<pod>/<container>] `` (``addPrefixIfNeeded``); ``--tail=-1`` because a
  selector's default tail is 10 lines. kubelet's ``ReadLogs``
  (``pkg/kubelet/kuberuntime/logs/logs.go``) writes each record's content after its time in
  ``RFC3339NanoFixed`` (nine digits) and a space, a ``P`` record without its newline, so
  kubectl, reading up to a newline, prints a partial record and the next one on one line; a
  stream that ends on a partial record ends without a newline, and the next pod's line
  follows it on the same line.
* **The training-operator ends the job** as its sources say (kubeflow/training-operator,
  the TFJob controller's ``UpdateJobStatus`` and ``SetDefaults_TFJob``): restart policy
  ``Never`` (the TFJob default), so a replica that exits non-zero fails the TFJob ("TFJob
  <ns>/<job> has failed because 1 <Type> replica(s) failed.") and the chief exiting 0 makes it
  succeed (success policy default); either way ``CleanPodPolicy: Running`` (the default) deletes
  the pods still running, and kubelet stops their containers with SIGTERM, then SIGKILL after
  the grace period (30 s on a cluster, :data:`GRACE` here). The lab's stop-file goodbye
  ("Launcher reports the job finished") is not used: a deleted pod's server just dies.
* **Nothing job-level.** A pod's log holds only what its container wrote: kubelet's own words
  (``kubectl describe pod``'s ``Reason: OOMKilled``, ``Exit Code: 137``, the events of a
  preemption, the TFJob's ``activeDeadlineSeconds``) are not in any log file a user collects
  with the commands above, so the launcher writes none; the lab's time limit and preemption
  are kept in truth.json only.

Name resolution: the service names resolve on the recording machine through /etc/hosts lines
(:data:`HOSTS_LINE`, added by hand as root before recording; ``check_names`` says when they are
missing). A wrong-count TF_CONFIG names a replica with no service (no line): its name does not
resolve, as on a cluster. Real pods each have their own IP and all listen on 2222; here every
task is on 127.0.0.1 and TensorFlow binds ``0.0.0.0:<port>``, so each task gets its own port.
Recorded runs are text and never need these lines to be read back.
No TensorFlow import here.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import threading
import time
import uuid
from pathlib import Path

#: The TFJob's namespace, name and container (the training-operator's default container name).
NAMESPACE = "kubeflow"
JOB_NAME = "recsys-tfjob"
CONTAINER = "tensorflow"
#: The label the training-operator puts on every pod of the job.
JOB_LABEL = "training.kubeflow.org/job-name"
#: containerd's default max_container_log_line_size.
MAX_LINE = 16384
#: The replicas whose service names resolve (chief, one ps, two workers).
REPLICAS = (("chief", 0), ("ps", 0), ("worker", 0), ("worker", 1))

#: The output forms, a third of the cells each: per pod under /var/log/pods, per container
#: under /var/log/containers, or one kubectl logs file.
NAMINGS = ("k8s_pods", "k8s_kubectl", "k8s_containers")
#: The operator's reaction to a pod's end (its informer and reconcile loop) and the lab's
#: termination grace period (kubelet's default terminationGracePeriodSeconds is 30).
OPERATOR_DELAY = 1.0
GRACE = 5.0
#: restartPolicy OnFailure: kubelet restarts a container that exited non-zero (its first
#: restart has no back-off); the lab restarts each once, and the TFJob's runPolicy
#: backoffLimit of 1 fails the job at a second failure.
RESTART_DELAY = 1.0
#: The replica types as the TFJob API spells them (the operator's failure message names them).
REPLICA_TYPES = {"chief": "Chief", "ps": "PS", "worker": "Worker", "evaluator": "Evaluator"}
RAW_DIR = ".raw"  # the tasks' plain output while they run (removed when the run is settled)


def pod_name(replica: str, index: int) -> str:
    """``jobcontroller.GenGeneralName(job, rtype, index)``: ``<job>-<replica>-<i>``."""
    return f"{JOB_NAME}-{replica}-{index}"


def service(replica: str, index: int, port: int) -> str:
    """A replica's address in the cluster spec: its headless service's name and the port."""
    return f"{pod_name(replica, index)}.{NAMESPACE}.svc:{port}"


def host_names() -> list[str]:
    return [service(r, i, 0).rsplit(":", 1)[0] for r, i in REPLICAS]


#: The /etc/hosts line the recording used (one line, every replica's service on 127.0.0.1).
HOSTS_LINE = "127.0.0.1 " + " ".join(host_names())


def check_names() -> str | None:
    """None when every replica's service name resolves, else what is missing."""
    bad = []
    for name in host_names():
        try:
            socket.getaddrinfo(name, None)
        except OSError:
            bad.append(name)
    if not bad:
        return None
    return f"{', '.join(bad)} do not resolve; as root add to /etc/hosts: {HOSTS_LINE}"


def tf_config(spec: dict) -> str:
    """A TF_CONFIG dict (``cluster`` + ``task``) as the training-operator's ``json.Marshal``
    writes it: cluster, task, environment ``cloud``; map keys sorted; no spaces."""
    cluster = {k: list(v) for k, v in sorted(spec["cluster"].items())}
    task = {"type": spec["task"]["type"], "index": int(spec["task"]["index"])}
    body = {"cluster": cluster, "task": task, "environment": "cloud"}
    return json.dumps(body, separators=(",", ":"))


def pod_uid(seed: int, pod: str) -> str:
    """A pod's UID (a version-4 UUID; the cell's seed keeps it stable)."""
    raw = bytearray(hashlib.sha1(f"{seed}/{pod}".encode()).digest()[:16])
    return str(uuid.UUID(bytes=bytes(raw), version=4))


def pod_log(pod: str, uid: str, restart: int = 0) -> str:
    """kubelet's path of a container's log under /var/log/pods."""
    return f"pods/{NAMESPACE}_{pod}_{uid}/{CONTAINER}/{restart}.log"


def container_id(seed: int, pod: str) -> str:
    """The container's id (64 hex digits, as containerd's; the cell's seed keeps it stable)."""
    return hashlib.sha256(f"{seed}/{pod}/{CONTAINER}".encode()).hexdigest()


def container_log(pod: str, cid: str) -> str:
    """kubelet's link to a container's log in /var/log/containers (``legacyLogSymlink``:
    ``<pod>_<namespace>_<container>-<container-id>.log``)."""
    return f"containers/{pod}_{NAMESPACE}_{CONTAINER}-{cid}.log"


def kubectl_file() -> str:
    return f"{JOB_NAME}.log"


KUBECTL_COMMAND = (
    f"kubectl logs -f -l {JOB_LABEL}={JOB_NAME} -n {NAMESPACE} --prefix --timestamps --tail=-1"
)
OUTPUT_FORMS = {
    "k8s_pods": "each container's CRI log under pods/<namespace>_<pod>_<uid>/tensorflow/0.log",
    "k8s_kubectl": f"one file: {KUBECTL_COMMAND} > {kubectl_file()}",
    "k8s_containers": "each container's CRI log as /var/log/containers links it: "
    "containers/<pod>_<namespace>_tensorflow-<container-id>.log",
}


def raw_name(node: str, restart: int = 0) -> str:
    """Where the lab keeps a task's plain output while it runs (per run of its container)."""
    return f"{RAW_DIR}/{node.replace(':', '-')}{f'.r{restart}' if restart else ''}.log"


def _raw_restart(name: str) -> int:
    m = re.search(r"\.r(\d+)\.log$", name)
    return int(m.group(1)) if m else 0


# ----------------------------------------------------------------------------- formats
def rfc3339nano(ns: int) -> str:
    """Go's ``time.RFC3339Nano`` of a UTC time in ns: the fraction without trailing zeros."""
    secs, frac = divmod(ns, 1_000_000_000)
    base = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs))
    digits = f"{frac:09d}".rstrip("0")
    return f"{base}.{digits}Z" if digits else f"{base}Z"


def rfc3339nano_fixed(ns: int) -> str:
    """Kubernetes' ``RFC3339NanoFixed`` (``2006-01-02T15:04:05.000000000Z07:00``)."""
    secs, frac = divmod(ns, 1_000_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs)) + f".{frac:09d}Z"


def cri_records(data: bytes, partial: bool, max_len: int = MAX_LINE) -> list[tuple[str, bytes]]:
    """The (tag, content) records containerd's CRI logger writes for one line it read:
    ``data`` with its newline, or (``partial``) the stream's last bytes with none."""
    if data.endswith(b"\n"):
        data = data[:-1]
        if data.endswith(b"\r"):
            data = data[:-1]
    out = []
    while len(data) > max_len:
        out.append(("P", data[:max_len]))
        data = data[max_len:]
    if data or not partial:
        out.append(("P" if partial else "F", data))
    return out


def cri_line(ns: int, stream: str, tag: str, content: bytes) -> bytes:
    """One line of a CRI log file."""
    return f"{rfc3339nano(ns)} {stream} {tag} ".encode() + content + b"\n"


def kubectl_piece(ns: int, tag: str, content: bytes) -> bytes:
    """What kubelet's ReadLogs with timestamps sends for one CRI record (a partial record's
    content without a newline)."""
    return f"{rfc3339nano_fixed(ns)} ".encode() + content + (b"\n" if tag == "F" else b"")


def kubectl_prefix(pod: str) -> bytes:
    return f"[pod/{pod}/{CONTAINER}] ".encode()


# ----------------------------------------------------------------------------- the node
class Kubelet:
    """The container runtime's and kubectl's output for one run.

    ``line(node, data, stream, partial)`` takes each line a task writes, the moment it is
    written (the lab reads stdout and stderr apart, as the runtime does); ``closed(node)``
    when both of its streams ended. ``finish(truth)`` settles the run's files: the tasks'
    plain copies go, and the evidence points at the lines of the files that stay.
    """

    def __init__(
        self, out_dir: Path, naming: str, seed: int, nodes: list[str], on_failure: bool = False
    ):
        self.out_dir, self.naming, self.seed = Path(out_dir), naming, seed
        self.kubectl = naming == "k8s_kubectl"
        self.on_failure = on_failure
        self.restarts = {n: 0 for n in nodes}
        self.first_exit: dict[str, int] = {}
        self.restarter = None  # starts a node's container again (the lab's start)
        self.restarting: set[str] = set()
        self.old_where: dict[tuple[str, int], list[int]] = {}
        self.pods = {n: pod_name(*_split(n)) for n in nodes}
        self.uids = {n: pod_uid(seed, p) for n, p in self.pods.items()}
        self.cids = {n: [container_id(seed, p)] for n, p in self.pods.items()}
        self.files = {n: self._file(n) for n in nodes}
        self.all_files = {n: [f] for n, f in self.files.items()}
        self.lock = threading.Lock()
        self.newlines: dict[str, int] = {}  # file -> newlines written so far
        self.where: dict[str, list[int]] = {n: [] for n in nodes}  # raw line -> file line
        self.pending: dict[str, bytes] = {n: b"" for n in nodes}  # kubectl: read, no newline
        self.waiting: dict[str, list[int]] = {n: [] for n in nodes}  # raw lines in pending
        self.started: set[str] = set()
        self.events: list[dict] = []
        self.deleted: set[str] = set()  # pods the operator deleted when the job ended
        self.over = threading.Event()  # the job ended (by the operator or the lab)
        self.acted = threading.Event()  # the operator deleted what was left
        if self.kubectl:
            (self.out_dir / kubectl_file()).write_bytes(b"")

    def _file(self, node: str) -> str:
        if self.kubectl:
            return kubectl_file()
        if self.naming == "k8s_containers":
            return container_log(self.pods[node], self.cids[node][-1])
        return pod_log(self.pods[node], self.uids[node], self.restarts[node])

    # the runtime's side
    def _append(self, name: str, data: bytes) -> int:
        """Append to ``name``; returns the line number ``data`` starts on."""
        path = self.out_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "ab") as f:
            f.write(data)
        start = self.newlines.get(name, 0) + 1
        self.newlines[name] = start - 1 + data.count(b"\n")
        return start

    def line(self, node: str, data: bytes, stream: str, partial: bool) -> None:
        with self.lock:
            self.started.add(node)
            raw_index = len(self.where[node])
            self.where[node].append(0)
            for tag, content in cri_records(data, partial):
                ns = time.time_ns()
                if self.kubectl and self.restarts[node]:
                    # kubectl logs -f followed the container that died (kubelet's ReadLogs
                    # ends when its container stops running): the new one is not in its output
                    continue
                if not self.kubectl:
                    no = self._append(self.files[node], cri_line(ns, stream, tag, content))
                    self.where[node][raw_index] = self.where[node][raw_index] or no
                    continue
                self.pending[node] += kubectl_piece(ns, tag, content)
                if raw_index not in self.waiting[node]:
                    self.waiting[node].append(raw_index)
                if self.pending[node].endswith(b"\n"):
                    self._flush(node)

    def _flush(self, node: str) -> None:
        no = self._append(self.files[node], kubectl_prefix(self.pods[node]) + self.pending[node])
        for i in self.waiting[node]:
            self.where[node][i] = no
        self.pending[node], self.waiting[node] = b"", []

    def closed(self, node: str) -> None:
        """Both streams of ``node`` ended: kubectl writes what it read of the last line."""
        with self.lock:
            if self.kubectl and self.pending[node]:
                self._flush(node)

    def job_event(self, event: str) -> None:
        """A job-level event of the launcher (its time limit, a preemption): Kubernetes writes
        nothing of it into any container's log, so it is only kept for truth.json. At the
        lab's ``end`` the operator's own reaction to the last pod's exit is let happen."""
        if event == "end":
            if not self.over.is_set():
                self.acted.wait(OPERATOR_DELAY + 1.0)
            self.over.set()
            return
        if event:  # the time limit: activeDeadlineSeconds (a preemption is the cell's fault)
            self.over.set()
            self.events.append({"event": event, "utc": rfc3339nano(time.time_ns())})

    # the training-operator's side
    def watch(self, procs: dict, chief: str) -> None:
        """Play the operator (``procs``: node -> Proc, the lab's live table): the first pod to
        exit non-zero fails the TFJob, the chief exiting 0 completes it; then every pod still
        running is deleted."""

        seen: set[int] = set()  # the containers whose end was dealt with

        def loop() -> None:
            while not self.over.is_set():
                for node, proc in list(procs.items()):
                    code = proc.popen.poll()
                    if code is None or proc.popen.pid in seen:
                        continue
                    if code != 0 and self.on_failure and self.restarts[node] == 0:
                        seen.add(proc.popen.pid)
                        self.first_exit[node] = code
                        self.restarting.add(node)
                        threading.Thread(
                            target=self._restart, args=(node, code), daemon=True
                        ).start()
                        continue
                    if code != 0 or node == chief:
                        time.sleep(OPERATOR_DELAY)
                        self._end_job(procs, node, code)
                        return
                time.sleep(0.1)

        threading.Thread(target=loop, daemon=True, name="tfjob-operator").start()

    def restart_due(self) -> bool:
        """A container's restart is due (the job is not over)."""
        return bool(self.restarting) and not self.over.is_set()

    def _restart(self, node: str, code: int) -> None:
        """kubelet restarts ``node``'s container in the same pod: restart count 1, a new
        container id, its output in ``1.log`` next to ``0.log``."""
        time.sleep(RESTART_DELAY)
        try:
            if self.over.is_set() or self.restarter is None:
                return
            with self.lock:
                self.old_where[(node, self.restarts[node])] = self.where[node]
                self.where[node] = []
                self.restarts[node] += 1
                self.cids[node].append(container_id(self.seed, f"{self.pods[node]}#1"))
                self.files[node] = self._file(node)
                self.all_files[node].append(self.files[node])
            self.events.append(
                {
                    "event": "container restarted (restartPolicy OnFailure)",
                    "pod": self.pods[node],
                    "exit_code": code,
                    "restart_count": self.restarts[node],
                    "utc": rfc3339nano(time.time_ns()),
                }
            )
            self.restarter(node, raw_name(node, self.restarts[node]))
        finally:
            self.restarting.discard(node)

    def _end_job(self, procs: dict, node: str, code: int) -> None:
        if self.over.is_set():
            return
        self.over.set()
        job, _ = _split(node)
        if code == 0:
            msg = f"TFJob {NAMESPACE}/{JOB_NAME} successfully completed."
        else:
            msg = (
                f"TFJob {NAMESPACE}/{JOB_NAME} has failed because 1 {REPLICA_TYPES[job]} "
                "replica(s) failed."
            )
        alive = [n for n, p in procs.items() if p.popen.poll() is None]
        self.events.append(
            {
                "event": "TFJob succeeded" if code == 0 else "TFJob failed",
                "message": msg,
                "pod_ended": node,
                "exit_code": code,
                "pods_deleted": alive,
                "utc": rfc3339nano(time.time_ns()),
            }
        )
        for n in alive:
            self.deleted.add(n)
            with contextlib.suppress(ProcessLookupError):
                os.kill(procs[n].popen.pid, signal.SIGTERM)
        self.acted.set()
        end = time.monotonic() + GRACE
        for n in alive:
            p = procs[n].popen
            with contextlib.suppress(Exception):
                p.wait(max(0.0, end - time.monotonic()))
            if p.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(p.pid, signal.SIGKILL)

    def finish(self, truth: dict) -> None:
        """The tasks' plain copies go; node files and evidence point at the runtime's files."""
        out = self.out_dir
        for ev in truth["evidence"]:
            node, no = ev["node"], ev["line_no"]
            run = _raw_restart(ev.get("file") or "")
            mine = self.old_where.get((node, run)) or self.where.get(node, [])
            if run == self.restarts.get(node, 0):
                mine = self.where.get(node, [])
            mine = mine + [0] * max(0, no - len(mine))
            name = self.all_files[node][run]
            text = (out / name).read_text(encoding="utf-8", errors="replace").splitlines()
            want, at = ev["text"][:100], mine[no - 1]
            # a line with a \r or \f in it counts as two in the plain copy: look for it
            if not at or want not in text[at - 1]:
                mark = kubectl_prefix(self.pods[node]).decode() if self.kubectl else ""
                at = next((i for i, x in enumerate(text, 1) if mark in x and want in x), 0)
            if not at:
                raise RuntimeError(f"{node}'s line {no} is not in {name}: {want[:80]!r}")
            ev["file"], ev["line_no"], ev["text"] = name, at, text[at - 1][:400]
        for node, files in truth["node_files"].items():
            truth["node_files"][node] = list(self.all_files[node]) if files else []
            if self.kubectl and files:
                truth["node_files"][node] = [kubectl_file()]
        shutil.rmtree(out / RAW_DIR, ignore_errors=True)
        truth["launcher_files"] = []
        for e in self.events:
            if e["event"].startswith("container restarted"):
                truth["notes"] += (
                    f" restartPolicy OnFailure: {e['pod']} exited {e['exit_code']} and kubelet "
                    f"restarted its container once (restart count {e['restart_count']})"
                    + (
                        "; kubectl logs -f had followed the container that died, so the new "
                        "one's output is not in its file."
                        if self.kubectl
                        else ", its output in a log of its own next to the first one's."
                    )
                )
        ended = [e for e in self.events if "pods_deleted" in e]
        if ended and ended[0]["pods_deleted"]:
            e = ended[0]
            truth["notes"] += (
                f" The training-operator saw {e['pod_ended']} exit {e['exit_code']} "
                f'("{e["message"]}") and deleted the pods still running (CleanPodPolicy '
                f"Running): {', '.join(e['pods_deleted'])} got SIGTERM, SIGKILL after {GRACE:.0f} s."
            )
        truth["kubernetes"] = {
            "namespace": NAMESPACE,
            "tfjob": JOB_NAME,
            "container": CONTAINER,
            "output": OUTPUT_FORMS[self.naming],
            "pods": {
                n: {
                    "pod": self.pods[n],
                    "uid": self.uids[n],
                    "container_ids": self.cids[n],
                    "restart_count": self.restarts[n],
                }
                for n in truth["nodes"]
            },
            "restart_policy": "OnFailure" if self.on_failure else "Never",
            "job_events_not_logged": self.events,
            "hosts_line": HOSTS_LINE,
        }


def _split(node: str) -> tuple[str, int]:
    job, index = node.split(":")
    return job, int(index)
