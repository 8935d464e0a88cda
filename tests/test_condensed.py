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


@pytest.mark.parametrize("gap", [5, 70, 300, 5000])
def test_a_kept_line_far_below_its_time_keeps_the_timed_line_it_inherits_from(gap):
    from analyzer.formats import Keep, parse_lines

    lines = ["2025-01-30 12:00:00,000 - INFO - start"]
    lines += [f"  filler {i}" for i in range(2000)]
    lines += ["2025-01-30 12:34:56,789 - INFO - the last line with a time"]
    lines += [f"  detail line {i}" for i in range(gap)]
    lines += ["ERROR:tensorflow:a line without a time of its own"]
    lines += [f"  more {i}" for i in range(3000)]
    table = parse_lines(("\n".join(lines) + "\n").encode(), Keep("nothing-matches-this")).table
    kept = table["line_no"].to_pylist()
    assert 2003 + gap in kept  # the error line, and the timed line it takes its time from
    assert 2002 in kept
    assert len(kept) < 700  # (the head, tail and even sample besides)


def test_a_long_log_keeps_the_lines_the_later_signals_read():
    """The straggler and shared-file signals read lines no rule is about: an input iterator's
    cancelled GetNext and a task saying it saves a file. A condensed parse of a long log keeps
    them, whatever rule keywords there are (``run.DIAGNOSIS_KEYWORDS``)."""
    from analyzer.formats import parse_lines
    from analyzer.rules import load_rules
    from analyzer.run import keep_for

    said = [
        "2025-01-30 12:34:56,789 - INFO - wrote the embeddings to /shared/out/table.bin",
        "2025-01-30 12:34:56,790 - INFO - the pending GetNext was cancelled",
    ]
    lines = [f"2025-01-30 12:00:{i % 60:02d},000 - INFO - step {i} loss 0.5" for i in range(20000)]
    lines[9000:9000] = said
    table = parse_lines(("\n".join(lines) + "\n").encode(), keep_for(load_rules())).table
    assert table.num_rows < 2000
    kept = table["message"].to_pylist()
    assert all(any(s.split(" - ")[-1] in k for k in kept) for s in said)
