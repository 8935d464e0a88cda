"""How a task's log ended when it logged no error (analyzer/diagnose/endings.py), on real lab
runs, each next to a copy changed so that the signal must turn off."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from conftest import changed_run, without

import analyzer

LAB = Path(__file__).resolve().parent / "corpus" / "lab"


FROZEN_PS = LAB / "tf1_supervisor" / "stall_deadline-ps-training-rotated"


def test_the_task_that_outlived_the_sigterm_is_the_one_its_peers_timed_out_on():
    """tf1_supervisor: ps:0 frozen (SIGSTOP) with 5 s operation timeouts: both workers log
    DeadlineExceededError naming no one; the ps logs nothing. The launcher's SIGTERM ends every
    task but ps:0, which it then has to SIGKILL: the stuck one they waited on."""
    run = analyzer.load(FROZEN_PS, condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("ps:0", "deadline_exceeded")
    assert any("still running after" in e.text for e in run.root_cause.evidence)


def test_without_the_kill_after_the_grace_the_ps_is_not_named(tmp_path: Path):
    run = changed_run(FROZEN_PS, tmp_path, "launcher.log", without("still running"))
    assert run.root_cause.node != "ps:0"


STARTUP_KILL = LAB / "pss_keras" / "kill-worker-startup-slurm"


def test_a_task_the_stop_did_not_name_had_gone_before_it_in_start_up_too():
    """pss_keras: worker:1 SIGKILLed after its server started; the chief waits silently and
    the launcher ends the job, naming chief:0, ps:0 and worker:0 only. No step was ever
    logged: the phase does not matter, the stop's names do."""
    run = analyzer.load(STARTUP_KILL, condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("worker:1", "node_crash")
    assert any(e.node == "launcher" for e in run.root_cause.evidence)


def test_when_the_stop_names_every_task_none_had_gone_before(tmp_path: Path):
    def name_all(text: str) -> str:
        return text.replace("ps:0, worker:0", "ps:0, worker:0, worker:1")

    run = changed_run(STARTUP_KILL, tmp_path, "launcher.log", name_all)
    assert (run.root_cause.node, run.root_cause.category) != ("worker:1", "node_crash")


CHIEF_KILL = LAB / "pss" / "kill-chief-training-gz"


def test_a_trainer_that_stops_mid_training_while_its_servers_say_goodbye_died():
    """pss: the chief is SIGKILLed at step 20; the ps and workers are told the job ended and
    shut down cleanly. No node finished training and no one stopped the job from outside."""
    run = analyzer.load(CHIEF_KILL, condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("chief:0", "node_crash")


def test_the_same_logs_with_the_chiefs_goodbye_are_healthy(tmp_path: Path):
    """Append the healthy pss chief's last lines (training finished, its ClusterCoordinator
    stopping the cluster), moved to just after the chief's last step: then nothing failed."""
    import gzip

    dst = tmp_path / "run"
    shutil.copytree(CHIEF_KILL, dst)
    healthy = LAB / "pss" / "healthy-none-full-stderr" / "chief0.stderr"
    bye = healthy.read_text(encoding="utf-8").splitlines(keepends=True)
    tail = [
        x.replace("19:12:47", "19:25:56")  # (after the chief's last step)
        for x in bye
        if "training finished" in x or "Stopping" in x
    ]
    with gzip.open(dst / "chief.log.gz", "at", encoding="utf-8") as f:
        f.write("".join(tail))
    run = analyzer.load(dst, condensed=True)
    assert run.root_cause.category == "none"


ASYNC_KILL = LAB / "estimator" / "kill-worker-training-plain"


def test_a_trainer_that_never_reached_the_end_its_peers_reached_died():
    """estimator (asynchronous between-graph): worker:1 is SIGKILLed at global step 293; the
    chief and worker:0 train on to step 900 and say so. Its log just stops."""
    run = analyzer.load(ASYNC_KILL, condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("worker:1", "node_crash")
    assert any(e.node == "chief:0" for e in run.root_cause.evidence)


def test_with_its_own_goodbye_the_same_worker_finished(tmp_path: Path):
    """Give worker:1 worker:0's last line (its 'training finished', renamed): nothing failed."""
    last = (ASYNC_KILL / "worker-0.log").read_text(encoding="utf-8").splitlines()[-1]
    bye = last.replace("(worker 0,", "(worker 1,") + "\n"
    run = changed_run(ASYNC_KILL, tmp_path, "worker-1.log", lambda text: text + bye)
    assert run.root_cause.category == "none"


CLIENT_KILLED_AT_START = LAB / "tf1_ingraph" / "kill-chief-startup-gz"


def test_the_one_log_without_a_goodbye_among_clean_ones_was_cut_off_at_start_up_too():
    """tf1_ingraph: the in-graph client is SIGKILLed right after its server started; the ps and
    workers only serve, and each says goodbye when the launcher ends the job. No step was
    logged anywhere: the client's log is the only one that ends without a goodbye."""
    run = analyzer.load(CLIENT_KILLED_AT_START, condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("client:0", "node_crash")
    assert "died before training" in run.root_cause.summary


def test_when_a_peer_also_ends_without_a_goodbye_the_client_is_not_singled_out(tmp_path: Path):
    run = changed_run(CLIENT_KILLED_AT_START, tmp_path, "worker-0.log.gz", without("shutting down"))
    assert (run.root_cause.node, run.root_cause.category) != ("client:0", "node_crash")


CHIEF_KILLED_SAVING = LAB / "pss_sharded" / "kill-chief-checkpoint-slurm"


def test_the_one_trainer_without_a_goodbye_after_its_training_finished_died():
    """pss_sharded: the chief said 'training finished', began its last checkpoint and was
    killed; every other log ends cleanly: it died saving."""
    run = analyzer.load(CHIEF_KILLED_SAVING, condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("chief:0", "node_crash")


def test_a_log_that_ends_with_its_training_finished_line_was_not_cut_off(tmp_path: Path):
    def edit(text: str) -> str:  # the chief's log up to its 'training finished' line
        return text[: text.index("\n", text.index("training finished after")) + 1]

    run = changed_run(CHIEF_KILLED_SAVING, tmp_path, "slurm-4218.0.out", edit)
    assert run.root_cause.category == "none"


HEARTBEAT_ONLY = LAB / "estimator_mwms" / "stall_notimeout-chief-training-host"


def test_a_heartbeat_deadline_is_not_the_waits_own():
    """estimator_mwms: the chief frozen with no operation timeout; the workers' coordination
    agents time out on their heartbeats to it (TF 2.15's 'while calling
    /tensorflow.CoordinationService/Heartbeat'), but their steps wait on until the launcher
    ends the job: a hang, not a deadline that fired."""
    run = analyzer.load(HEARTBEAT_ONLY, condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("chief:0", "hang")


def test_the_same_deadline_on_another_call_is_a_deadline_that_fired(tmp_path: Path):
    folder = tmp_path / "run"
    shutil.copytree(HEARTBEAT_ONLY, folder)
    for name in ("host-b/worker.out", "host-c/worker.out"):
        log = folder / name
        log.write_text(log.read_text().replace("CoordinationService/Heartbeat", "Worker/Recv"))
    run = analyzer.load(folder, condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("chief:0", "deadline_exceeded")


SLURM_FROZEN_LEADER = next((LAB / "mwms_slurm").glob("stall_notimeout-chief-*"))


def test_the_lines_after_a_tracebacks_exception_line_belong_to_its_message():
    """mwms_slurm: TensorFlow's exception goes on after the traceback's last line ('Detected at
    node ... defined at', frames with blank lines between, 'Collective ops is aborted by:
    Deadline Exceeded', 'RPC: /tensorflow.CoordinationService/Heartbeat'): those lines are its
    text, so the peers' deadline is seen as the heartbeat's (the service gave up on its frozen
    host), not as a wait of their own."""
    run = analyzer.load(SLURM_FROZEN_LEADER, condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("worker:0", "coordination_failure")


def test_without_the_rpc_note_the_same_exception_is_a_deadline(tmp_path: Path):
    folder = tmp_path / "run"
    shutil.copytree(SLURM_FROZEN_LEADER, folder)
    for log in folder.glob("*-[12].out"):
        log.write_text(without("RPC: /tensorflow.CoordinationService/Heartbeat")(log.read_text()))
    run = analyzer.load(folder, condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("worker:0", "deadline_exceeded")


SLURM_MISSING = LAB / "mwms_slurm" / "missing-worker-startup-srun_label"
TFJOB_HEALTHY = LAB / "tfjob_k8s" / "healthy-none-full-k8s_pods"


def test_a_task_only_its_peers_name_that_they_waited_for_at_start_up_never_came_up():
    """mwms_slurm: worker:1 never started; no cluster spec is printed (SlurmClusterResolver
    builds it from srun's variables), so only the coordination service's 'Example stragglers:
    /job:worker/replica:0/task:1' names it; the job waited at start-up until Slurm's time
    limit: it never came up (session_blocked), not a death."""
    run = analyzer.load(SLURM_MISSING, condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("worker:1", "session_blocked")


def test_the_same_task_named_by_a_later_error_is_not_said_to_have_never_come_up(tmp_path: Path):
    def edit(text: str) -> str:  # the waits become an error of a trained job, naming it
        return text.replace("Waiting for 2/3 tasks to connect.", "step 3/60 loss 0.5").replace(
            "Waiting for 1/3 tasks to connect.", "step 4/60 loss 0.4"
        )

    run = changed_run(SLURM_MISSING, tmp_path, "slurm-5183226.out", edit)
    assert run.root_cause.category != "session_blocked"


def test_a_worker_that_only_serves_ends_its_log_with_the_job(tmp_path: Path):
    """tfjob_k8s (ParameterServerStrategy on Kubernetes): the workers only serve the chief's
    closures and log no step; the pods still running are deleted once the chief finishes, so
    their logs stop with no goodbye at the training's end: a healthy run."""
    run = analyzer.load(TFJOB_HEALTHY, condensed=True)
    assert run.root_cause.category == "none"


def test_a_worker_that_only_serves_and_stops_before_the_end_died(tmp_path: Path):
    # the same run with worker:0's log cut after its first 25 lines: it stopped long before
    # the chief finished
    name = next(p for p in TFJOB_HEALTHY.rglob("*.log") if "worker-0" in str(p))
    run = changed_run(
        TFJOB_HEALTHY,
        tmp_path,
        str(name.relative_to(TFJOB_HEALTHY)),
        lambda t: "".join(t.splitlines(keepends=True)[:25]),
    )
    assert (run.root_cause.node, run.root_cause.category) == ("worker:0", "node_crash")


TFJOB_RESTART = LAB / "tfjob_k8s" / "kill_onfailure-chief-training-k8s_pods"


def test_a_task_whose_process_started_again_died_in_its_first_run():
    """kubelet restarted the killed chief's container (restartPolicy OnFailure): its second
    run (``1.log``) trains to the end; its first (``0.log``) stops mid-training. TensorFlow
    starting the chief's server a second time says the process started again."""
    run = analyzer.load(TFJOB_RESTART, condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("chief:0", "node_crash")
    assert any(e.file and e.file.endswith("0.log") for e in run.root_cause.evidence)


def test_one_run_of_the_restarted_task_alone_shows_no_restart(tmp_path: Path):
    # the same run with the chief's first run's log gone: one start, a run to the end
    dst = tmp_path / "run"
    shutil.copytree(TFJOB_RESTART, dst)
    for first in dst.rglob("0.log"):
        if "chief-0" in str(first):
            first.unlink()
    run = analyzer.load(dst, condensed=True)
    assert run.root_cause.category == "none"


TFJOB_NO_PS = LAB / "tfjob_k8s" / "missing-ps-startup-k8s_containers"


def test_a_task_with_no_log_in_a_job_that_never_got_past_start_up_never_came_up():
    """tfjob_k8s: the ps was never started; the chief, the workers and their cluster spec name
    it, no log shows a step or a goodbye (the chief waits in silence), and the TFJob's deadline
    deletes the pods, which Kubernetes writes nothing of. No error line anywhere."""
    run = analyzer.load(TFJOB_NO_PS, condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("ps:0", "session_blocked")


def test_a_task_with_no_log_in_a_job_that_trained_is_not_said_to_have_never_come_up(
    tmp_path: Path,
):
    # the healthy TFJob with worker:0's log gone: the job trained, so its absence says nothing
    dst = tmp_path / "run"
    shutil.copytree(TFJOB_HEALTHY, dst)
    for p in dst.rglob("*.log"):
        if "worker-0" in str(p):
            p.unlink()
    run = analyzer.load(dst, condensed=True)
    assert (run.root_cause.node, run.root_cause.category) != ("worker:0", "session_blocked")
    assert run.root_cause.category == "none"


TFJOB_STARTUP_KILL = LAB / "tfjob_k8s" / "kill-chief-startup-k8s_kubectl"


def test_a_job_whose_every_log_stops_at_start_up_is_not_called_healthy():
    """tfjob_k8s: the chief is killed at start-up and the other pods are deleted with the job
    30 ms later; no error, no step, no goodbye in any log, and nothing tells which went first.
    The verdict names no node, but says the job never got going, at low confidence."""
    run = analyzer.load(TFJOB_STARTUP_KILL, condensed=True)
    assert run.root_cause.node is None
    assert "never got going" in run.root_cause.summary
    assert run.root_cause.confidence <= 0.2
    healthy = analyzer.load(TFJOB_HEALTHY, condensed=True).root_cause
    assert "never got going" not in healthy.summary and healthy.confidence >= 0.6


TFJOB_CHIEF_SAVING = LAB / "tfjob_k8s" / "kill-chief-checkpoint-k8s_pods"


def test_the_only_trainer_that_logs_on_after_its_finish_without_a_goodbye_died_saving():
    """tfjob_k8s: the chief (the only trainer: ParameterServerStrategy's workers and ps only
    serve) says its training finished, starts saving, and is killed; the pods are then
    deleted, so no log ends with a goodbye. A chief that exits says goodbye."""
    run = analyzer.load(TFJOB_CHIEF_SAVING, condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("chief:0", "node_crash")
    assert "only trainer" in run.root_cause.summary


def test_a_trainer_whose_log_ends_with_its_finish_line_was_not_cut_off_saving(tmp_path: Path):
    # the same run with the chief's log ending at its "training finished" line
    name = next(p for p in TFJOB_CHIEF_SAVING.rglob("*.log") if "chief-0" in str(p))

    def to_finish(text: str) -> str:
        lines = text.splitlines(keepends=True)
        end = next(i for i, x in enumerate(lines) if "training finished" in x)
        return "".join(lines[: end + 1])

    run = changed_run(
        TFJOB_CHIEF_SAVING, tmp_path, str(name.relative_to(TFJOB_CHIEF_SAVING)), to_finish
    )
    assert "only trainer" not in run.root_cause.summary


COMPOSE_LATE = LAB / "mwms_compose" / "late-worker-startup-compose_logs"


def test_a_late_start_the_job_got_over_when_the_last_lines_are_shutdown_noise():
    """mwms_compose: worker:1 starts 15 s late and the leader logs 'Example stragglers' naming
    it; then all three train to the end. worker:0 (the leader) exits first, so the other two
    end with failed RPCs to the coordination service after their own 'training finished':
    shutdown noise, not an ending that keeps the wait a failure."""
    run = analyzer.load(COMPOSE_LATE, condensed=True)
    assert run.root_cause.category == "none"


def test_a_late_task_that_never_finished_keeps_the_wait_a_failure(tmp_path: Path):
    # the same run with worker:1's lines from its 20th step on gone (its steps, its epoch
    # line, its "training finished"): its failed RPCs then come before any end of its own
    late_steps = re.compile(r"step (?:[2-5]\d|60)/60|20/20 - |training finished")
    run = changed_run(
        COMPOSE_LATE,
        tmp_path,
        "compose.log",
        lambda t: "".join(
            x
            for x in t.splitlines(keepends=True)
            if not (x.startswith("trainer-1-1") and late_steps.search(x))
        ),
    )
    assert run.root_cause.category != "none"
