"""Clocks read from the steps nodes report together (analyzer.diagnose.anchors), and
the run variants that rewrite real lab runs as other deployments log them
(analyzer.evaluate.variants)."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest
from conftest import changed_run, without

import analyzer
from analyzer.diagnose.anchors import anchor_offsets
from analyzer.evaluate.runs import evaluate_one, find_cases
from analyzer.evaluate.variants import VARIANTS, Variant, write_run

LAB = Path(__file__).resolve().parent / "corpus" / "lab"
# three workers of a custom loop that each log their steps with their own time
LOCKSTEP = LAB / "mwms_ctl" / "healthy-none-full-slurm"
LATE = LAB / "mwms_ctl" / "late-worker-startup-plain"


def _text(path: Path) -> str:
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode()


def test_a_clock_variant_moves_every_timestamp_of_one_node_only(tmp_path):
    write_run(LOCKSTEP, tmp_path, Variant("t", "clock", 5.0, "culprit"))
    moved = _text(tmp_path / "slurm-4204.0.out")  # worker:0, the healthy run's "culprit"
    original = _text(LOCKSTEP / "slurm-4204.0.out")
    step = re.compile(r"^(\S+ \d\d:\d\d:)(\d\d),(\d{3}) - INFO - step 10/", re.M)
    (a,), (b,) = step.findall(original), step.findall(moved)
    assert int(b[1]) - int(a[1]) in (5, -55) and b[2] == a[2]
    assert _text(tmp_path / "slurm-4204.1.out") == _text(LOCKSTEP / "slurm-4204.1.out")
    epoch = re.compile(r"^I0000 00:00:(\d+)\.(\d+)", re.M)
    pairs = list(zip(epoch.findall(moved), epoch.findall(original), strict=True))
    assert pairs and all(int(x) - int(y) == 5 and f == g for (x, f), (y, g) in pairs)


def test_pod_addresses_give_every_task_its_own_ip_and_one_port(tmp_path):
    write_run(LOCKSTEP, tmp_path, VARIANTS["pod-addresses"])
    text = "".join(_text(p) for p in sorted(tmp_path.glob("*.out")))
    assert "127.0.0.1:" not in text
    pods = set(re.findall(r"10\.244\.\d+\.\d+:(\d+)", text))
    assert pods == {"2222"}
    config = re.findall(r"TF_CONFIG=(.*)", text)
    assert len(set(config)) == 3  # (each task's own "task" part; one cluster in all)
    assert len(set(re.findall(r"10\.244\.\d+\.\d+", config[0]))) == 3


def test_same_clock_runs_show_no_step_offset():
    """Recorded on one host: whatever the fault (a late start, a slow or frozen worker),
    no node's steps are read as another clock."""
    for run in find_cases([str(LAB / "mwms_ctl"), str(LAB / "mwms_keras")]):
        r = analyzer.load(run)
        assert anchor_offsets(r.progress, r.timeline).offsets == {}, run.name


@pytest.mark.parametrize("seconds", [5.0, -20.0])
def test_a_node_whose_steps_run_steadily_off_has_its_clock_moved(tmp_path, seconds):
    write_run(LOCKSTEP, tmp_path, Variant("t", "clock", seconds, "culprit"))
    run = analyzer.load(tmp_path)
    got = anchor_offsets(run.progress, run.timeline)
    assert list(got.offsets) == ["worker:0"]
    assert got.offsets["worker:0"] == pytest.approx(seconds, abs=0.05)
    assert run.root_cause.category == "none"
    assert any(n.startswith("Clocks: worker:0's clock runs") for n in run.diagnosis.notes)
    assert not any(n.startswith("Clocks:") for n in analyzer.load(LOCKSTEP).diagnosis.notes)


def test_a_node_whose_steps_carry_no_time_is_placed_by_its_join(tmp_path):
    """worker:1 logs its steps without times; its joining the coordination service (the
    leader's 'task:1 has connected' and its own 'agent has successfully connected', at the
    same moment) says its clock."""
    write_run(LOCKSTEP, tmp_path / "v", Variant("t", "clock", 8.0, "victim"))  # worker:1 moved
    run = analyzer.load(tmp_path / "v")
    got = anchor_offsets(run.progress, run.timeline)
    assert got.offsets == {"worker:1": pytest.approx(8.0, abs=0.2)}
    edit = without("has connected to coordination service", "agent has successfully connected")
    (tmp_path / "c").mkdir()
    bare = changed_run(tmp_path / "v", tmp_path / "c", "slurm-4204.1.out", edit)
    assert anchor_offsets(bare.progress, bare.timeline).offsets == {}


def test_of_two_step_reporters_the_one_whose_start_is_off_is_moved(tmp_path):
    """Without joins to read, two nodes report timed steps: the start-up of all three
    nodes says whose clock is off."""
    write_run(LOCKSTEP, tmp_path / "w0", Variant("t", "clock", -8.0, "culprit"))
    edit = without("has connected to coordination service", "agent has successfully connected")
    (tmp_path / "c").mkdir()
    run = changed_run(tmp_path / "w0", tmp_path / "c", "slurm-4204.0.out", edit)
    assert anchor_offsets(run.progress, run.timeline).offsets == {
        "worker:0": pytest.approx(-8.0, abs=0.05)
    }


def test_a_late_start_in_lockstep_is_no_clock(tmp_path):
    run = analyzer.load(LATE)
    assert anchor_offsets(run.progress, run.timeline).offsets == {}
    assert evaluate_one(LATE)["right"]


def _verdict(folder: Path) -> tuple:
    row = evaluate_one(folder)
    return row["node"], row["category"]


@pytest.mark.slow
def test_pod_addresses_change_no_verdict(tmp_path):
    """Every task on its own pod IP and one port, as on Kubernetes: the same verdict, run for
    run, over two styles (a TF1 cluster and MWMS)."""
    runs = find_cases([str(LAB / "tf1"), str(LAB / "mwms_keras")])
    for run in runs:
        copy = tmp_path / run.relative_to(LAB)
        write_run(run, copy, VARIANTS["pod-addresses"])
        assert _verdict(copy) == _verdict(run), run


#: Healthy runs that this variant still makes look failed, with why (each asserted still wrong:
#: one that turns right must leave this table).
_CHIEF_AHEAD = (
    "session_blocked on worker:0: TF1's worker:1 waits out its 30 s poll for the chief's model "
    "('Waiting for model to be ready'); with the chief's clock 20 s ahead its start reads as "
    "20 s late, and start-up waits are judged before any clock is estimated (supervisord's "
    "'spawned:' lines, which give every start in one clock, are not read)"
)
CLOCK_AHEAD_WRONG = {
    "tf1_supervisord/healthy-none-full-sup_auto": _CHIEF_AHEAD,
    "tf1_supervisord/healthy-none-full-sup_redirect": _CHIEF_AHEAD,
    "tf1_supervisord/healthy-none-full-sup_rotate": _CHIEF_AHEAD,
    "tf1_supervisord/healthy_old-none-full-sup_rotate": _CHIEF_AHEAD,
}


@pytest.mark.slow
def test_a_healthy_run_stays_healthy_when_one_clock_is_20_s_ahead(tmp_path):
    runs = [r for r in find_cases([str(LAB)]) if r.name.startswith("healthy")]
    # one node's clock can be set ahead only where its files are its own: a file that holds
    # every task's lines (one `mpirun --tag-output` or `kubectl logs --prefix` stream) is moved
    # as a whole by the variant, its wrapped and unwrapped times unevenly, which no real clock does
    runs = [r for r in runs if _own_files(r, "worker:0")]
    assert len(runs) >= 30
    for run in runs:
        copy = tmp_path / run.relative_to(LAB)
        write_run(run, copy, VARIANTS["culprit-clock+20s"])
        known = CLOCK_AHEAD_WRONG.get(str(run.relative_to(LAB)))
        assert (_verdict(copy)[1] == "none") != bool(known), (run, known)


def _own_files(run: Path, node: str) -> bool:
    """Does ``node`` (a healthy run's culprit for the variants) have files no other node has?"""
    import json

    files = json.loads((run / "truth.json").read_text()).get("node_files") or {}
    others = {f for n, fs in files.items() if n != node for f in fs}
    return bool(files.get(node)) and not set(files[node]) & others
