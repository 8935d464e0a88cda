"""What a terminal leaves in a log, read from the recorded mwms_tmux runs (real TensorFlow
processes in real tmux windows, see tests/corpus/lab/protocol.json): a log line glued to Keras's
progress bar, the shell's word that a job was stopped, and its ``Killed`` after a stop's SIGTERM.
Each signal is shown on a real run and on a copy with the one line that carries it taken out."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pyarrow as pa

import analyzer
from analyzer.formats.events import _unglued
from tests.conftest import ROOT

TMUX = ROOT / "tests" / "corpus" / "lab" / "mwms_tmux"


def _edited(run: Path, tmp_path: Path, name: str, drop: bytes):
    """``run`` copied with the lines of ``name`` that hold ``drop`` left out (bytes as they are:
    the pty's CRLF and the bar's carriage returns kept), analysed as ``analyze`` does."""
    dst = tmp_path / "run"
    shutil.copytree(run, dst)
    path = dst / name
    kept = [x for x in path.read_bytes().splitlines(keepends=True) if drop not in x]
    assert len(kept) < len(path.read_bytes().splitlines()), "the line to drop is there"
    path.write_bytes(b"".join(kept))
    return analyzer.load(dst, condensed=True)


def test_a_log_line_glued_to_the_progress_bar_keeps_its_own_time_and_level():
    path = TMUX / "stall_notimeout-worker-training-tmux_pipe" / "logs" / "worker-2.log"
    data = path.read_bytes()
    run = analyzer.load(path)
    assert run.ingest.lines_in_timeline + run.ingest.lines_rejected == run.ingest.lines_read
    timeline = run.timeline
    glued = timeline[timeline["message"].str.contains("StartAbort", na=False)]
    assert len(glued)
    row = glued.iloc[0]
    assert row["level"] == "ERROR"
    # its time is its own glog prefix's (absl: seconds since the epoch), not the bar line's
    raw = next(x for x in data.split(b"\n") if b"StartAbort" in x).decode()
    epoch = float(raw.split("E0000 00:00:")[1].split()[0])
    assert abs(pd.Timestamp(row["ts"]).timestamp() - epoch) < 0.001


def test_unglued_leaves_a_bar_alone_when_no_log_line_follows_it():
    bar = "20/20 [==============================] - 2s 124ms/step - loss: 40.1"
    glued = bar[:-4] + "2026-11-25 15:01:56,192 - INFO - step 20/60"
    out = _unglued(pa.array([bar, glued, "plain words"], pa.large_string())).to_pylist()
    assert out == [bar, "2026-11-25 15:01:56,192 - INFO - step 20/60", "plain words"]


def test_the_shells_stopped_line_says_the_task_froze(tmp_path):
    """The frozen worker's own window alone: the shell's '[1]+  Stopped python ...' says the
    process was stopped, alive (hang); without that line its log just ends."""
    run = TMUX / "stall_notimeout-worker-training-tmux_pipe"
    rc = analyzer.load(run, condensed=True).root_cause
    assert (rc.node, rc.category) == ("worker:1", "coordination_failure")  # its peers gave up
    (tmp_path / "own").mkdir()
    own = tmp_path / "own" / "worker-1.log"
    data = (run / "logs" / "worker-1.log").read_bytes()
    own.write_bytes(data)
    assert analyzer.load(own).root_cause.category == "hang"
    own.write_bytes(b"".join(x for x in data.splitlines(keepends=True) if b"Stopped" not in x))
    assert analyzer.load(own).root_cause.category != "hang"


def test_killed_after_the_tasks_own_sigterm_is_the_stops_escalation(tmp_path):
    run = TMUX / "preempt-worker-training-tmux_capture"
    rc = analyzer.load(run, condensed=True).root_cause
    assert (rc.node, rc.category) == ("worker:1", "preemption")
    without = _edited(run, tmp_path, "logs/worker-1.txt", b"SIGTERM caught").root_cause
    assert (without.node, without.category) == ("worker:1", "oom")  # a bare Killed: OOM killer
    assert "names no sender" in (without.ambiguity or "")
