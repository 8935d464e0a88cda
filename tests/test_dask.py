"""The Dask engine: a real distributed.LocalCluster (processes, on 127.0.0.1) gives the same
timeline and the same verdict as the local engine."""

from __future__ import annotations

import distributed
import pytest
from conftest import sample_folders

from analyzer.run import load


@pytest.fixture(scope="module")
def scheduler():
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        worker_dashboard_address=None,
    ) as cluster:
        yield cluster.scheduler_address


@pytest.mark.slow
@pytest.mark.parametrize("condensed", [True, False], ids=["analyze", "ingest"])
def test_dask_engine_matches_local_engine(scheduler, condensed):
    for folder in sample_folders():
        local = load(folder, condensed=condensed, workers=1)
        remote = load(folder, condensed=condensed, engine="dask", scheduler=scheduler)
        assert remote.ingest.timeline.equals(local.ingest.timeline), folder.name
        assert remote.ingest.to_dict() == local.ingest.to_dict(), folder.name
        assert (remote.root_cause.node, remote.root_cause.category) == (
            local.root_cause.node,
            local.root_cause.category,
        ), folder.name


def test_dask_engine_through_the_cli(scheduler, tmp_path):
    import json

    from analyzer.cli import main

    folder = sample_folders()[0]
    out = tmp_path / "r.json"
    code = main(
        [
            "analyze",
            str(folder),
            "--engine",
            "dask",
            "--scheduler",
            scheduler,
            "--json",
            str(out),
            "-q",
        ]
    )
    assert code in (0, 1)
    assert json.loads(out.read_text())["ingest"]["lines_read"] > 0


def test_dask_engine_needs_a_scheduler(capsys):
    from analyzer.cli import main

    assert main(["analyze", ".", "--engine", "dask"]) == 2
    assert "--scheduler" in capsys.readouterr().err
