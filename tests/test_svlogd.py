"""svlogd's stamps (runit; daemontools' multilog and s6-log write TAI64N too) as a known
wrapper (analyzer/formats/catalog.py ``svlogd``), read on the real runs of
tests/corpus/lab/mwms_runit: every piece of a service's log is peeled, the small rotated ones
too, so a traceback svlogd's rotation cut between two pieces still ends the log."""

from __future__ import annotations

from pathlib import Path

import pytest

import analyzer
from analyzer.formats import parse_lines

RUNIT = Path(__file__).resolve().parent / "corpus" / "lab" / "mwms_runit"


@pytest.mark.parametrize(
    ("run", "first"),
    [
        ("healthy-none-full-runit_tt", "2026-11-25_"),  # -tt
        ("healthy-none-full-runit_tai", "@4000"),  # -t: TAI64N
    ],
)
def test_each_stamp_is_peeled(run: str, first: str):
    data = (RUNIT / run / "var" / "log" / "tf-worker-0" / "current").read_bytes()
    assert data.decode().startswith(first)
    parsed = parse_lines(data)
    assert parsed.wrapper == "svlogd"
    assert parsed.formats.get("absl", 0) + parsed.formats.get("python_logging", 0) > 10
    assert not any(str(m).startswith(first) for m in parsed.table["message"].to_pylist())


def test_a_line_without_the_stamp_is_not_wrapped():
    data = RUNIT / "healthy-none-full-runit_tt" / "var" / "log" / "tf-worker-0" / "current"
    lines = [line.split(" ", 1)[1] for line in data.read_text().splitlines() if " " in line]
    assert parse_lines("\n".join(lines).encode()).wrapper is None


def test_a_traceback_cut_by_rotation_still_ends_the_log():
    """worker 0's DeadlineExceededError traceback begins in a rotated piece and ends in
    ``current``: the log ends with an exception (not mid-run), and worker 1, frozen, is the
    one its peers timed out on."""
    run = analyzer.load(RUNIT / "stall_deadline-worker-training-runit_rotate", condensed=True)
    assert run.root_cause.node == "worker:1"
    assert run.root_cause.category == "deadline_exceeded"
    assert any(n.node == "worker:0" and n.status == "victim" for n in run.diagnosis.nodes)
