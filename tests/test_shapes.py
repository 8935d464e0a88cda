"""The odd member of a collective (analyzer.diagnose.shapes), voted from TF's own message."""

from __future__ import annotations

from pathlib import Path

import analyzer
from analyzer.diagnose import gather
from analyzer.diagnose.shapes import odd_shape_members

RUN = Path(__file__).parent / "corpus" / "lab" / "mwms_keras" / "shape-worker-training-pod"


def test_the_member_that_reports_its_own_shape_is_the_odd_one():
    run = analyzer.load(RUN, condensed=True)
    ev = gather(run.timeline, run.findings, run.ingest, run.rules, [], run.progress)
    odd = odd_shape_members(ev)
    assert set(odd) == {"worker:1"}
    assert "[17,8]" in odd["worker:1"] and "[16,8]" in odd["worker:1"]
    assert (run.root_cause.node, run.root_cause.category) == ("worker:1", "shape_mismatch")


def test_no_vote_without_a_minority():
    """When every member reports, nobody can be named."""
    run = analyzer.load(RUN, condensed=True)
    ev = gather(run.timeline, run.findings, run.ingest, run.rules, [], run.progress)
    for node in ("chief:0", "worker:0"):
        ev.facts.pop(node)
    assert odd_shape_members(ev) == {}
