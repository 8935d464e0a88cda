"""Ray's logs (the mwms_ray lab style: real Ray 2.60 runs): which files are which process, and
which process is which TensorFlow task.

Ray names a worker process's logs by its WorkerID and pid (``worker-<id>-<job>-<pid>.out`` and
``.err``, ``python-core-worker-<id>_<pid>.log``, ``train/ray-train-*-worker-<id>.log``) and
copies every worker's lines into the driver's output behind ``(<name> pid=<pid>) ``."""

from __future__ import annotations

import shutil

import pytest
from conftest import ROOT

from analyzer.identity import hint_from_name
from analyzer.run import load

RAY = ROOT / "tests" / "corpus" / "lab" / "mwms_ray"


def _nodes(folder) -> dict[str, list[str]]:
    return {n["node"]: n["files"] for n in load(folder).to_dict()["nodes"]}


@pytest.mark.parametrize(
    "name",
    [
        "worker-3814fc66b5e94eed7e4edb33e47d1eae1080724442e71a70cdcc022c-01000000-4284.err",
        "python-core-worker-3814fc66b5e94eed7e4edb33e47d1eae1080724442e71a70cdcc022c_4284.log",
        "ray-train-app-worker-3814fc66b5e94eed7e4edb33e47d1eae1080724442e71a70cdcc022c.log",
    ],
)
def test_a_job_word_before_a_process_id_names_no_task(name):
    assert hint_from_name(name).node is None


def test_task_names_in_file_names_still_count():
    assert hint_from_name("worker-3.log").node == "worker:3"
    assert hint_from_name("tfjob-mnist-worker-1.log").node == "worker:1"
    assert hint_from_name("worker-1-deadbeef.log").node == "worker:1"  # a short hex is no id


def test_the_logs_of_one_ray_worker_process_are_one_task():
    nodes = _nodes(RAY / "kill-worker-training-ray_session")
    tasks = {n for n in nodes if ":" in n}
    assert tasks == {"worker:0", "worker:1", "worker:2"}  # no task named after a pid
    files = [f.rsplit("/", 1)[-1] for f in nodes["worker:1"]]
    # the .out (whose TF_CONFIG names the task), its .err and Ray's core-worker log of the
    # same WorkerID, and Ray Train's per-worker logs
    worker_id = next(f for f in files if f.endswith(".out")).split("-")[1]
    assert all(worker_id in f for f in files)
    assert any(f.startswith("python-core-worker-") for f in files)
    assert any(f.endswith(".err") for f in files)


def test_the_drivers_output_is_parted_by_process():
    nodes = _nodes(RAY / "kill-chief-startup-ray_driver")
    assert {"worker:0", "worker:1", "worker:2"} <= set(nodes)
    others = [n for n in nodes if ":" not in n]
    assert "ray-job" in others  # the driver's own lines
    assert any(n.startswith("ray-job/TrainController pid=") for n in others)


def test_a_launchers_copy_beside_a_tasks_own_log_is_a_job_level_log(tmp_path):
    """ray_both: the session's worker logs and the driver's copy of every worker's lines. The
    copy is the launcher's; without the worker's own logs it is the task's only log."""
    run = RAY / "kill-chief-training-ray_both"
    nodes = _nodes(run)
    assert all("ray-job.err" not in files for n, files in nodes.items() if ":" in n)
    assert any(n.startswith("ray-job.err/") or n.startswith("ray-job/") for n in nodes)
    alone = tmp_path / "driver-only"
    alone.mkdir()
    for f in run.glob("ray-job.*"):
        shutil.copy(f, alone / f.name)
    nodes = _nodes(alone)
    assert {"worker:0", "worker:1", "worker:2"} <= set(nodes)
    assert any("ray-job.err" in files for n, files in nodes.items() if ":" in n)
