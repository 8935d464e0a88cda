"""``tfdiag analyze`` keeps only the events the diagnosis needs; the verdict must not change."""

from __future__ import annotations

import json

import pytest
from conftest import sample_folders

from analyzer.run import load


@pytest.mark.parametrize("folder", sample_folders(), ids=lambda p: p.name)
def test_condensed_verdict_equals_full_verdict_and_truth(folder):
    truth = json.loads((folder / "truth.json").read_text())
    full = load(folder)
    condensed = load(folder, condensed=True)
    assert condensed.ingest.timeline.num_rows <= full.ingest.timeline.num_rows
    assert condensed.ingest.to_dict()["lines_read"] == full.ingest.to_dict()["lines_read"]
    for run in (full, condensed):
        assert run.root_cause.node == truth["first_failing_node"]
        assert run.root_cause.category == truth["root_cause_category"]
