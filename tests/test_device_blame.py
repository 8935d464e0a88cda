"""An out-of-memory error names the device its allocation failed on: the task that owns that
device ran out of memory, whichever task's log reports it (an in-graph client reports the
allocations that failed on its workers)."""

from __future__ import annotations

from pathlib import Path

from conftest import changed_run

import analyzer
from analyzer.diagnose import gather

LAB = Path(__file__).resolve().parent / "corpus" / "lab"
WORKER_OOM = LAB / "tf1_ingraph" / "oom-worker-training-pod"
CLIENT_LOG = "ranker-ingraph-client-0-2f59.log"
WORKER_LOG = "ranker-ingraph-worker-1-896c.log"


def _blames(run):
    return gather(run.timeline, run.findings, run.ingest, run.rules, [], run.progress).blames


def test_the_oom_is_the_task_whose_device_ran_out():
    """tf1_ingraph: worker:1 runs under a memory cap and its allocator runs out; the client's
    session fails with ``OOM when allocating tensor ... on /job:worker/replica:0/task:1``."""
    run = analyzer.load(WORKER_OOM, condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("worker:1", "oom")
    blames = _blames(run)
    by_device = blames[blames["how"] == "the allocation failed on its device"]
    assert not by_device.empty and set(by_device["blamed"]) == {"worker:1"}
    assert set(by_device["victim"]) == {"client:0"}


def test_an_oom_on_the_reporters_own_device_blames_the_reporter(tmp_path: Path):
    def on_the_client(text: str) -> str:
        return text.replace(
            "/job:worker/replica:0/task:1/device", "/job:client/replica:0/task:0/device"
        )

    run = changed_run(WORKER_OOM, tmp_path, CLIENT_LOG, on_the_client)
    blames = _blames(run)
    assert (blames["how"] == "the allocation failed on its device").sum() == 0
