"""Sharded parameter servers with a sidecar evaluator (the lab's pss_sharded runs): an
evaluator outside the cluster spec, its "steps", its death, a coordinator's program, and a
timeout that fired."""

from __future__ import annotations

from pathlib import Path

from conftest import changed_run, without

import analyzer

RUNS = Path(__file__).resolve().parent / "corpus" / "lab" / "pss_sharded"


def _verdict(run) -> tuple:
    return run.root_cause.node, run.root_cause.category


def test_an_evaluator_outside_the_cluster_spec_is_no_spec_mismatch(tmp_path):
    """TensorFlow runs the evaluator outside the cluster its TF_CONFIG lists; a worker
    outside it is a mismatch."""
    run = analyzer.load(RUNS / "healthy-none-full-slurm")
    assert _verdict(run) == (None, "none")
    assert not any("is not in its cluster spec" in n for n in run.diagnosis.notes)

    def edit(text: str) -> str:
        return text.replace('"type": "evaluator", "index": 0', '"type": "worker", "index": 7')

    moved = changed_run(RUNS / "healthy-none-full-slurm", tmp_path, "slurm-4204.5.out", edit)
    assert any("is not in its cluster spec" in n for n in moved.diagnosis.notes)


def test_an_evaluators_step_is_not_a_trainer_step():
    """'evaluated the checkpoint of training step 10' is read as progress, but an evaluator
    is no trainer: no straggler is made of the chief by comparing it with its evaluator."""
    for name in ("healthy-none-full-rotated", "late-worker-startup-plain"):
        assert _verdict(analyzer.load(RUNS / name)) == (None, "none"), name


def test_an_evaluator_whose_log_stops_before_the_training_ends_died(tmp_path):
    name = "kill-evaluator-training-pod"
    assert _verdict(analyzer.load(RUNS / name)) == ("evaluator:0", "node_crash")
    done = changed_run(
        RUNS / name,
        tmp_path,
        "ads-sharded-evaluator-0-bd68.log",
        lambda t: t + "2026-11-24 07:30:00,000 - INFO - evaluator done\n",
    )
    assert _verdict(done) == (None, "none")


def test_a_program_error_in_a_function_the_coordinator_sent_is_the_coordinators(tmp_path):
    run = analyzer.load(RUNS / "dtype-chief-training-host")
    assert _verdict(run) == ("chief:0", "dtype_mismatch")
    edit = without("encountered the following error when processing closure")
    silent = changed_run(RUNS / "dtype-chief-training-host", tmp_path, "host-a/chief.out", edit)
    assert _verdict(silent) == ("worker:0", "dtype_mismatch")


def test_a_stall_whose_peers_timed_out_is_a_deadline_not_a_hang(tmp_path):
    name = "stall_deadline-ps-training-stderr"
    assert _verdict(analyzer.load(RUNS / name)) == ("ps:1", "deadline_exceeded")
    edit = without("Deadline Exceeded", "DeadlineExceeded")
    waited = changed_run(RUNS / name, tmp_path, "chief0.stderr", edit)
    assert _verdict(waited) == ("ps:1", "hang")


EMWMS = RUNS.parent / "estimator_mwms"


def test_a_line_that_reports_a_step_and_the_end_ends_the_training(tmp_path):
    """Estimator workers end with 'Loss for final step' and 'training finished after 240
    local steps': both a step report and the end. Their heartbeat errors after the chief left,
    just before those lines, are shutdown noise."""
    name = "healthy-none-full-gz"
    assert _verdict(analyzer.load(EMWMS / name)) == (None, "none")
    cut = changed_run(
        EMWMS / name,
        tmp_path,
        "worker-1.log.gz",
        without("Loss for final step", "training finished"),
    )
    assert _verdict(cut) != (None, "none")


def test_a_task_the_coordination_service_never_saw_join_never_came_up(tmp_path):
    name = "missing-worker-startup-host"
    seen = analyzer.load(EMWMS / name, condensed=True)
    assert _verdict(seen) == ("worker:1", "session_blocked")
    edit = without("has connected to coordination service")
    blind = changed_run(EMWMS / name, tmp_path, "host-a/chief.out", edit)
    # (without the joins the verdict still follows from the wait for a task with no log, once
    # the heartbeat errors after the launcher's stop are known as its doing: less sure of it)
    assert blind.root_cause.confidence < seen.root_cause.confidence
