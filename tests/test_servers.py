"""Tasks that only serve (a tf.data service's dispatcher and data workers, on real lab runs):
connection retries while a task itself was still starting are no failure, a server that kept
the finished trainers from leaving held the job, and a server that never came up was waited
for. Each next to a copy changed so that the signal must turn off."""

from __future__ import annotations

from pathlib import Path

from conftest import changed_run, without

import analyzer

LAB = Path(__file__).resolve().parent / "corpus" / "lab" / "data_service"
TRAINER_KILLED_AT_START = LAB / "kill-worker-startup-slurm"


def test_retries_before_a_tasks_own_server_started_are_no_failure():
    """worker:1 is SIGKILLed at start-up. The data workers retried their heartbeat to the
    dispatcher while they were still starting (their own servers started after), and the
    dispatcher's log, a server's, ends after start-up: neither makes it the culprit."""
    run = analyzer.load(TRAINER_KILLED_AT_START, condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("worker:1", "node_crash")
    assert any("Start-up:" in n for n in run.diagnosis.notes)


def test_retries_after_the_tasks_own_start_still_count(tmp_path: Path):
    """The same retries from data workers whose logs show no server start of their own: they
    are not start-up retries, and they name the dispatcher again."""
    import shutil

    dst = tmp_path / "run"
    shutil.copytree(TRAINER_KILLED_AT_START, dst)
    for name in ("slurm-4211.1.out", "slurm-4211.2.out"):  # the two data workers
        path = dst / name
        path.write_text(without("Started tf.data")(path.read_text()))
    run = analyzer.load(dst, condensed=True)
    assert not any("Start-up:" in n for n in run.diagnosis.notes)
    assert run.root_cause.node == "dispatcher:0"


FROZEN_DISPATCHER = LAB / "stall_notimeout-ps-training-rotated"


def test_a_server_that_held_the_finished_trainers_hung():
    """The dispatcher is frozen mid-training: both trainers log all their steps and say their
    training finished, but cannot leave; the launcher stops the job for making no progress
    and has to SIGKILL the dispatcher and the trainers."""
    run = analyzer.load(FROZEN_DISPATCHER, condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("dispatcher:0", "hang")


def test_when_the_server_exits_on_the_sigterm_it_held_nothing(tmp_path: Path):
    def only_trainers(text: str) -> str:
        return text.replace("still running after 5 s: dispatcher:0, ", "still running after 5 s: ")

    run = changed_run(FROZEN_DISPATCHER, tmp_path, "launcher.log", only_trainers)
    assert (run.root_cause.node, run.root_cause.category) != ("dispatcher:0", "hang")


MISSING_DISPATCHER = LAB / "missing-ps-startup-slurm"


def test_a_server_that_never_came_up_was_waited_for():
    """The dispatcher never starts (no log): every peer's first try at its port is refused
    and no task ever trains. The job waited for it at start-up."""
    run = analyzer.load(MISSING_DISPATCHER, condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("dispatcher:0", "session_blocked")
