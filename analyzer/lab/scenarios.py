"""The lab's fault-injection scenarios.

Each scenario function gets a :class:`~analyzer.lab._runner.Lab`, starts the
cluster, injects its fault and returns an :class:`Outcome`.  The driver in
``analyzer.lab`` cleans up, rotates files, checks the evidence and writes truth.json.
"""

from __future__ import annotations

import os
import re
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ._runner import Lab, free_ports, utc_now


class ScenarioError(RuntimeError):
    """The scenario's fault did not show up as planned."""


@dataclass
class Outcome:
    nodes: list[str]
    first_failing_node: str | None
    category: str
    notes: str
    # (node, regex) pairs whose matches prove the fault; all must be found.
    expect: list[tuple[str, str]] = field(default_factory=list)
    missing_nodes: list[str] = field(default_factory=list)
    rotate: list[str] = field(default_factory=list)
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    category: str
    run: Callable[[Lab], Outcome]
    cluster: str  # short text, e.g. "chief + 1 ps + 2 workers (ParameterServerStrategy)"


def _cluster(jobs: dict[str, int]) -> dict[str, list[str]]:
    total = sum(jobs.values())
    ports = iter(free_ports(total))
    return {job: [f"127.0.0.1:{next(ports)}" for _ in range(n)] for job, n in jobs.items()}


def _tfc(cluster: dict, node: str) -> dict:
    job, index = node.split(":")
    return {"cluster": cluster, "task": {"type": job, "index": int(index)}}


def _must(m, what: str):
    if not m:
        raise ScenarioError(what)
    return m


# --------------------------------------------------------------------------- 3
def port_in_use(lab: Lab) -> Outcome:
    cluster = _cluster({"chief": 1, "ps": 1, "worker": 2})
    victim = "ps:0"
    port = int(cluster["ps"][0].rsplit(":", 1)[1])
    _must(lab.squat(port), "squatter could not bind")
    files = {
        "ps:0": "ps0.stderr",
        "worker:0": "worker0.stderr",
        "worker:1": "worker1.stderr",
        "chief:0": "chief0.stderr",
    }
    lab.mark_fault()
    for node, rel in files.items():
        lab.start(
            node,
            "ps_training.py",
            rel,
            tf_config=_tfc(cluster, node),
            args=["--steps", "60"],
            log_style="absl",
        )
    _must(lab.wait_exit(victim, 90) is not None, "ps:0 did not exit")
    # The chief keeps trying to reach the ps (its port answers TCP but not gRPC).
    lab.wait_exit("chief:0", 15)
    return Outcome(
        nodes=list(files),
        first_failing_node=victim,
        category="address_in_use",
        notes=(
            f"Before start-up another process bound and listened on 127.0.0.1:{port}, ps:0's "
            'port. ps:0 logs "add_port.cc:83] Failed to add port to server: No address added '
            f"out of total 1 resolved for '0.0.0.0:{port}'\" and 'grpc_server_lib.cc:618] "
            "UNKNOWN: Could not start gRPC server' and exits 1 with "
            "tensorflow.python.framework.errors_impl.UnknownError: Could not start gRPC server "
            "(TF 2.21 does not print the words 'Address already in use'). The chief's "
            "ParameterServerStrategy keeps connecting to the ps silently (the squatter's port "
            "accepts TCP but speaks no gRPC) until the launcher kills it; the workers start "
            "their servers and shut down when the launcher ends the job."
        ),
        expect=[
            (victim, r"Failed to add port to server"),
            (victim, r"Could not start gRPC server"),
        ],
        extra={"bound_port": port},
    )


# --------------------------------------------------------------------------- 4
def wrong_port_in_spec(lab: Lab) -> Outcome:
    cluster = _cluster({"worker": 3})
    wrong_port = free_ports(1)[0]
    w = cluster["worker"]
    bad = {"worker": [w[0], f"127.0.0.1:{wrong_port}", w[2]]}
    nodes = ["worker:0", "worker:1", "worker:2"]
    hosts = {"worker:0": "host-a", "worker:1": "host-b", "worker:2": "host-c"}
    for node in nodes:
        spec = bad if node == "worker:2" else cluster
        lab.start(
            node,
            "mwms_training.py",
            f"{hosts[node]}/worker.log",
            tf_config=_tfc(spec, node),
            args=["--steps", "30"],
            log_style="python",
        )
    lab.mark_fault()
    lab.wait_all(nodes, 120)
    return Outcome(
        nodes=nodes,
        first_failing_node="worker:2",
        category="cluster_spec_mismatch",
        notes=(
            "Per-host folders (host-a/worker.log, host-b/worker.log, host-c/worker.log); the "
            "task index is only in the content. worker:2's TF_CONFIG lists worker 1 at "
            f"127.0.0.1:{wrong_port}; the others list {w[1]}, where worker:1 really listens. "
            "All three register with the coordination service on worker:0, then worker:2's "
            "first ring all-reduce RecvBuf to /job:worker/replica:0/task:1 fails with "
            "'UNAVAILABLE: failed to connect to all addresses ... Connection refused' for the "
            "wrong port; worker:0 aborts the collective with the same error relayed, and "
            "worker:1 fails later when its coordination heartbeat to worker:0 gets "
            "'Failed to send RPC to coordination service'. The MultiWorkerMirroredStrategy "
            "start-up line 'MultiWorkerMirroredStrategy with cluster_spec = ...' differs on "
            "worker:2. All exit 1."
        ),
        expect=[
            ("worker:2", rf"TF_CONFIG=.*127\.0\.0\.1:{wrong_port}"),
            ("worker:2", r"Error"),
        ],
        extra={"wrong_address": f"127.0.0.1:{wrong_port}", "right_address": w[1]},
    )


# --------------------------------------------------------------------------- 7
def dtype_mismatch(lab: Lab) -> Outcome:
    cluster = _cluster({"worker": 3})
    nodes = [f"worker:{i}" for i in range(3)]
    for node in nodes:
        i = node.split(":")[1]
        extra = ["--feed-dtype", "int64"] if node == "worker:1" else []
        lab.start(
            node,
            "mwms_training.py",
            f"tfjob-dtype-worker-{i}.log",
            tf_config=_tfc(cluster, node),
            args=["--steps", "30", "--collective-timeout", "20", *extra],
            log_style="python",
        )
    lab.mark_fault()
    _must(lab.wait_exit("worker:1", 150) is not None, "worker:1 did not fail")
    lab.wait_all(["worker:0", "worker:2"], 60)
    return Outcome(
        nodes=nodes,
        first_failing_node="worker:1",
        category="dtype_mismatch",
        notes=(
            "worker:1's input pipeline decodes features as int64 while the model variables "
            "are float32 (it logs 'input pipeline: features decoded as int64'). Tracing its "
            "train step fails: 'Error reported to Coordinator: Input 'b' of 'MatMul' Op has "
            "type float32 that does not match type int64 of argument 'a'.' and worker:1 exits "
            "1 with that TypeError. worker:0 and worker:2 are already in the first all-reduce "
            "and fail with 'Aborting RingReduce with UNAVAILABLE: Socket closed' / "
            "UnavailableError naming /job:worker/replica:0/task:1 when worker:1 goes away."
        ),
        expect=[("worker:1", r"does not match type int64")],
    )


# --------------------------------------------------------------------------- 9
def late_worker_tf1(lab: Lab) -> Outcome:
    cluster = _cluster({"ps": 1, "worker": 2})
    nodes = ["ps:0", "worker:0", "worker:1"]
    files = {"ps:0": "ps_0.txt", "worker:0": "worker_0.txt", "worker:1": "worker_1.txt"}
    lab.mark_fault()  # worker:1 should have started now, with the others
    for node in ("ps:0", "worker:0"):
        lab.start(
            node,
            "tf1_training.py",
            files[node],
            tf_config=_tfc(cluster, node),
            args=["--steps", "60"],
            log_style="absl",
        )
    _must(
        lab.wait_for("worker:0", r"CreateSession still waiting for response from worker", 150),
        "worker:0 never reported waiting for worker:1",
    )
    lab.wait_for("worker:0", r"(?s)CreateSession still waiting.*CreateSession still waiting", 15)
    late_start = utc_now()
    lab.start(
        "worker:1",
        "tf1_training.py",
        files["worker:1"],
        tf_config=_tfc(cluster, "worker:1"),
        args=["--steps", "60"],
        log_style="absl",
    )
    lab.wait_all(["worker:0", "worker:1"], 150)
    return Outcome(
        nodes=nodes,
        first_failing_node="worker:1",
        category="session_blocked",
        notes=(
            "TF1 between-graph replication (tf.compat.v1.train.Server, replica_device_setter, "
            "MonitoredTrainingSession; worker:0 is chief). worker:1 was started only after "
            "worker:0 had logged 'CreateSession still waiting for response from worker: "
            "/job:worker/replica:0/task:1' at least twice (every 10 s). Once worker:1 is up "
            "the session is created and both workers train to the last step and exit 0, so "
            "the job recovered: the root cause is the late start of worker:1."
        ),
        expect=[
            ("worker:0", r"CreateSession still waiting for response from worker: /job:worker/"),
            ("worker:1", r"session created"),
        ],
        extra={"late_start_utc": {"worker:1": late_start}},
    )


# -------------------------------------------------------------------------- 10
_TS = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}) - INFO - saving weights to", re.M)


def concurrent_hdf5(lab: Lab) -> Outcome:
    cluster = _cluster({"worker": 3})
    nodes = [f"worker:{i}" for i in range(3)]
    shared = lab.scratch / "shared_logdir"
    shared.mkdir()
    h5 = shared / "model_weights.h5"
    for node in nodes:
        i = node.split(":")[1]
        lab.start(
            node,
            "mwms_training.py",
            f"worker{i}.stderr",
            tf_config=_tfc(cluster, node),
            args=["--steps", "20", "--save-h5", str(h5)],
            log_style="python",
        )
    lab.wait_all(nodes, 150)
    starts, failed, errors = {}, [], {}
    for node in nodes:
        text = lab.read(node)
        finals = re.findall(r"^\w+Error: \[Errno \d+\] Unable to synchronously.*$", text, re.M)
        if finals:
            errors[node] = finals[-1]
        m = _TS.search(text)
        if m:
            starts[node] = f"{m.group(1).replace(' ', 'T')}.{m.group(2)}000Z"
        if re.search(r"Unable to synchronously (open|create) file", text):
            failed.append(node)
    _must(failed, "no worker failed to open the shared HDF5 file")
    _must(starts, "no worker started saving")
    first = min(failed, key=lambda n: (starts.get(n, "~"), n))
    lab.fault_time_utc = min(starts.values())
    holders = [n for n in nodes if n not in failed]
    return Outcome(
        nodes=nodes,
        first_failing_node=first,
        category="concurrent_write",
        notes=(
            "Every worker (not only the chief) saves its weights with h5py into the same "
            f"file in a shared logdir ({h5.name}). {', '.join(holders) or 'one worker'} "
            "created it first and holds HDF5's file lock while writing; "
            f"{', '.join(failed)} fail in h5py.File(path, 'w') and exit 1 with: "
            + "; ".join(f"{n}: {e}" for n, e in errors.items())
            + ". fault_time_utc is the first "
            "'saving weights to' line; first_failing_node is the failing writer that started "
            "saving earliest (ties: lower index); failed_writers lists all of them."
        ),
        expect=[(first, r"^\w+Error: \[Errno \d+\] Unable to synchronously")],
        extra={
            "shared_file": str(h5),
            "failed_writers": failed,
            "save_started_utc": starts,
            "writer_errors": errors,
        },
    )


# -------------------------------------------------------------------------- 12
def version_mismatch(lab: Lab) -> Outcome:
    alt = alt_python()
    if not alt:
        raise ScenarioError(
            "version_mismatch needs a second interpreter with another TensorFlow release: "
            "set TFDIAG_LAB_ALT_PYTHON or create /tmp/tf219 "
            "(python3 -m venv /tmp/tf219 && /tmp/tf219/bin/pip install tensorflow-cpu==2.19.1)"
        )
    cluster = _cluster({"chief": 1, "ps": 1, "worker": 2})
    files = {
        "chief:0": "chief.log",
        "ps:0": "ps-0.log",
        "worker:0": "worker-0.log",
        "worker:1": "worker-1.log",
    }
    for node, rel in files.items():
        lab.start(
            node,
            "ps_training.py",
            rel,
            tf_config=_tfc(cluster, node),
            args=["--steps", "40", "--image-format", "webp"],
            python=alt if node == "worker:1" else None,
            log_style="python",
        )
    lab.mark_fault()
    lab.wait_exit("chief:0", 150)
    time.sleep(1.0)
    return Outcome(
        nodes=list(files),
        first_failing_node="worker:1",
        category="version_mismatch",
        notes=(
            "worker:1 runs TensorFlow 2.19.1 from a second virtualenv; chief, ps and worker:0 "
            "run 2.21.0 (each log prints 'tf.__version__ = ...'). The chief's dataset_fn "
            "decodes WebP images with tf.io.decode_webp, whose op DecodeWebP is new in 2.21. "
            "When the ClusterCoordinator builds the per-worker dataset on worker:1, worker:1 "
            "logs \"Failed to parse map_while_body_...: Op type not registered 'DecodeWebP' in "
            'binary running on vm" (mlir_bridge_pass_util.cc) and the chief fails with '
            "ClosureInputError / NotFoundError: Op type not registered 'DecodeWebP' naming "
            "/job:worker/task:1 and exits 1. TF 2.19.1 also prints its early C++ lines in the "
            "older 'YYYY-MM-DD HH:MM:SS.ffffff: I tensorflow/...' format."
        ),
        expect=[
            ("worker:1", r"^tf\.__version__ = 2\.19"),
            ("worker:1", r"Op type not registered 'DecodeWebP'"),
            ("chief:0", r"Op type not registered 'DecodeWebP'"),
        ],
        extra={"alt_python": alt},
    )


def alt_python() -> str | None:
    cand = [
        os.environ.get("TFDIAG_LAB_ALT_PYTHON"),
        "/tmp/tf219/bin/python",
        "/tmp/tf-old/bin/python",
    ]
    for c in cand:
        if c and Path(c).exists():
            return c
    return None


# -------------------------------------------------------------------------- 14
def clock_skew(lab: Lab) -> Outcome:
    cluster = _cluster({"worker": 3})
    nodes = [f"worker:{i}" for i in range(3)]
    hosts = {"worker:0": "host-a", "worker:1": "host-b", "worker:2": "host-c"}
    # POSIX TZ "XXX+1" is one hour *behind* UTC: worker:1's clock reads UTC-3600 s.
    skew_env = {"worker:1": {"TZ": "XXX+1"}}
    for node in nodes:
        lab.start(
            node,
            "mwms_training.py",
            f"{hosts[node]}/train.log",
            tf_config=_tfc(cluster, node),
            args=["--steps", "200"],
            env=skew_env.get(node),
            log_style="python",
        )
    _must(lab.wait_for("worker:2", r"step 10/", 150), "worker:2 never reached step 10")
    lab.signal("worker:2", signal.SIGKILL)
    lab.wait_all(["worker:0", "worker:1"], 60)
    return Outcome(
        nodes=nodes,
        first_failing_node="worker:2",
        category="node_crash",
        notes=(
            "worker:2 is SIGKILLed after step 10 (node_crash); its log ends with a step line. "
            "worker:1's python-logging timestamps are one hour behind (its host clock/TZ "
            "reads UTC-1h), so its 'Collective ops is aborted' error appears to precede the "
            "crash by an hour. Only the python 'YYYY-MM-DD HH:MM:SS,mmm' stamps are skewed; "
            "TensorFlow's C++ lines (I0000 00:00:<epoch seconds>) carry true epoch time on "
            "every node."
        ),
        expect=[
            ("worker:0", r"remote target /job:worker/replica:0/task:2"),
            ("worker:1", r"UnavailableError"),
        ],
        extra={"clock_skew_seconds": {"worker:1": -3600}},
    )


SCENARIO_FUNCS: list[tuple[str, str, str, str, Callable[[Lab], Outcome]]] = [
    (
        "port_in_use",
        "The parameter server's port is already bound by another process, so its gRPC "
        "server cannot start.",
        "address_in_use",
        "chief + 1 ps + 2 workers (ParameterServerStrategy)",
        port_in_use,
    ),
    (
        "wrong_port_in_spec",
        "One worker's TF_CONFIG gives a wrong port for worker 0, the coordination leader.",
        "cluster_spec_mismatch",
        "3 workers (MultiWorkerMirroredStrategy)",
        wrong_port_in_spec,
    ),
    (
        "dtype_mismatch",
        "One worker feeds int64 features to a float32 model.",
        "dtype_mismatch",
        "3 workers (MultiWorkerMirroredStrategy)",
        dtype_mismatch,
    ),
    (
        "late_worker_tf1",
        "TF1 between-graph training where one worker starts late, so the chief waits in "
        "CreateSession.",
        "session_blocked",
        "1 ps + 2 workers (tf.compat.v1 Server + MonitoredTrainingSession)",
        late_worker_tf1,
    ),
    (
        "concurrent_hdf5",
        "Every worker saves its weights into one HDF5 file in a shared logdir at the same time.",
        "concurrent_write",
        "3 workers (MultiWorkerMirroredStrategy) + h5py",
        concurrent_hdf5,
    ),
    (
        "version_mismatch",
        "One worker runs another TensorFlow release than the rest of the cluster.",
        "version_mismatch",
        "chief + 1 ps + 2 workers (ParameterServerStrategy), worker 1 on another TF",
        version_mismatch,
    ),
    (
        "clock_skew",
        "A worker is killed while another worker's clock runs an hour behind.",
        "node_crash",
        "3 workers (MultiWorkerMirroredStrategy)",
        clock_skew,
    ),
]
