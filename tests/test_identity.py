"""Node identity from file names and from log contents."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

import analyzer
from analyzer.identity import facts_from_content, hint_from_name, task_for_address, task_name


@pytest.mark.parametrize(
    ("name", "parents", "node", "rotation"),
    [
        ("worker-0.log", (), "worker:0", 0),
        ("worker0.stderr", (), "worker:0", 0),
        ("ps_1.txt", (), "ps:1", 0),
        ("tfjob-mnist-worker-3.log", (), "worker:3", 0),
        ("chief.log", ("host-a",), "chief:0", 0),
        ("worker-1.log.1", (), "worker:1", 1),
        ("worker-1.log.2", (), "worker:1", 2),
        ("stdout.log", ("worker-2",), "worker:2", 0),
        ("worker.log", ("host-b",), None, 0),
        ("evaluator.log", (), "evaluator:0", 0),
        ("random.log", (), None, 0),
    ],
)
def test_names(name, parents, node, rotation):
    hint = hint_from_name(name, parents)
    assert hint.node == node
    assert hint.rotation == rotation


def test_rotated_pieces_share_a_stem():
    assert (
        hint_from_name("worker-1.log.1").stem
        == hint_from_name("worker-1.log.2").stem
        == "worker-1.log"
    )


def _facts(*lines: str):
    return facts_from_content(pa.array(list(lines), pa.large_string()))


def test_tf_config_printed_by_launcher():
    facts = _facts(
        'TF_CONFIG={"cluster": {"chief": ["127.0.0.1:57785"], "ps": ["127.0.0.1:37271"], '
        '"worker": ["127.0.0.1:58119", "127.0.0.1:49363"]}, "task": {"type": "worker", "index": 1}}'
    )
    assert facts.node == "worker:1"
    assert facts.cluster == {
        "chief": ["127.0.0.1:57785"],
        "ps": ["127.0.0.1:37271"],
        "worker": ["127.0.0.1:58119", "127.0.0.1:49363"],
    }


def test_python_dict_tf_config():
    facts = _facts(
        "TF_CONFIG: {'cluster': {'worker': ['a:1', 'b:2']}, 'task': {'type': 'worker', 'index': 0}}"
    )
    assert facts.node == "worker:0"


def test_eager_service_context_names_own_task():
    # a real TensorFlow 2.21 line (lab, ps_killed, ps-0.log)
    facts = _facts(
        "Creating sync eager service context with rendezvous_id on host vm /job:ps/replica:0/task:0"
    )
    assert facts.node == "ps:0"


def test_mwms_task_type_line():
    facts = _facts(
        "MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:1', '127.0.0.1:2']}, "
        "task_type = 'worker', task_id = 1, num_workers = 2, local_devices = ('/job:worker/task:1/device:CPU:0',)"
    )
    assert facts.node == "worker:1"


def test_started_server_address_maps_through_cluster_spec():
    facts = _facts("Started server with target: grpc://localhost:2223")
    assert facts.address == "localhost:2223"
    cluster = {"ps": ["127.0.0.1:2223"], "worker": ["127.0.0.1:2224"]}
    assert task_for_address(facts.address, [cluster]) == ("ps", 0)


def test_tf1_channel_cache_gives_cluster():
    facts = _facts(
        "Initialize GrpcChannelCache for job worker -> {0 -> localhost:2222, 1 -> localhost:2223}"
    )
    assert facts.cluster == {"worker": ["localhost:2222", "localhost:2223"]}


def test_error_naming_a_peer_is_not_identity():
    facts = _facts(
        "Additional GRPC error information from remote target /job:ps/replica:0/task:0 while calling /tensorflow.WorkerService/RecvTensor:"
    )
    assert facts.node is None


def test_task_name():
    assert task_name("worker:3") == "/job:worker/replica:0/task:3"
    assert task_name("somefile") is None


def test_short_logs_get_the_same_facts_from_python_as_from_arrow(monkeypatch):
    from pathlib import Path

    import analyzer.identity as identity
    from analyzer.formats import parse_lines

    root = Path(__file__).resolve().parent.parent
    paths = sorted((root / "sample_logs").rglob("*.log"))
    paths += sorted((root / "tests" / "corpus" / "lab").rglob("*.log"))[:150]
    found = 0
    for path in paths:
        messages = parse_lines(path.read_bytes()).table["message"]
        monkeypatch.setattr(identity, "_FEW_ROWS", 0)
        arrow = identity.facts_from_content(messages)
        monkeypatch.setattr(identity, "_FEW_ROWS", 10**9)
        python = identity.facts_from_content(messages)
        assert python == arrow, path
        found += arrow.job is not None
    assert found > 20


SLURM = Path(__file__).resolve().parent / "corpus" / "lab" / "mwms_slurm"


def test_slurm_procid_alone_is_slurm_cluster_resolvers_worker():
    """A task configured by SlurmClusterResolver (no TF_CONFIG) is worker:<SLURM_PROCID>, as the
    resolver's default jobs make it; a TF_CONFIG or the task's own devices win over it."""
    assert _facts("SLURM_JOB_ID=5183207", "SLURM_PROCID=2").node == "worker:2"
    assert _facts("SLURM_PROCID=2", 'TF_CONFIG={"task": {"type": "ps", "index": 0}}').node == "ps:0"
    devices = "Enabled multi-worker collective ops with available devices: ['/job:chief/replica:0/task:0/device:CPU:0']"
    assert _facts(devices, "SLURM_PROCID=1").node == "chief:0"
    assert _facts("SLURM_PROCID_X=2").node is None


def test_a_slurm_task_killed_before_its_resolver_line_is_named_by_its_rank():
    """mwms_slurm: worker:1 killed at start-up, before any TensorFlow line named it; its file
    (``%x-%j-%t.out``) and the others are named by the SLURM_PROCID their banners print."""
    run = analyzer.load(next(SLURM.glob("kill-worker-startup-*")), condensed=True)
    assert {"worker:0", "worker:1", "worker:2"} <= {n.node for n in run.diagnosis.nodes}


def test_mwms_cluster_spec_is_read_after_the_devices_named_the_task():
    # MultiWorkerMirroredStrategy logs its collective devices (which name the task) before its
    # cluster_spec (collective_all_reduce_strategy.py): the spec is still read
    facts = _facts(
        "Enabled multi-worker collective ops with available devices: "
        "['/job:worker/replica:0/task:1/device:CPU:0', '/job:worker/replica:0/task:0/device:CPU:0']",
        "MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['localhost:1', 'localhost:2']}, "
        "task_type = 'worker', task_id = 1, num_workers = 2, local_devices = "
        "('/job:worker/task:1/device:CPU:0',), communication = CommunicationImplementation.AUTO",
    )
    assert facts.node == "worker:1"
    assert facts.cluster == {"worker": ["localhost:1", "localhost:2"]}
