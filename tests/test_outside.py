"""The job's own end (analyzer.diagnose.outside): job-level logs and stops from outside."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
from conftest import changed_run, without

import analyzer
from analyzer.diagnose.facts import Facts
from analyzer.diagnose.outside import job_level_logs, stopped_together

SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"
T0 = pd.Timestamp("2026-11-22T04:10:00Z")


def _facts(**endings: tuple[str, str | None, float]) -> dict[str, Facts]:
    return {
        node: Facts(
            node, ending=ending, exit_info=exit_info, last_time=T0 + pd.Timedelta(seconds=s)
        )
        for node, (ending, exit_info, s) in endings.items()
    }


def test_a_log_that_is_no_task_is_job_level():
    facts = _facts(
        **{"worker:0": ("mid-run", None, 0), "worker:1": ("mid-run", None, 1)},
        launcher=("killed", "SIGKILL", 30),
    )
    assert job_level_logs(facts) == {"launcher"}
    # alone (no job:index beside it) a stem-named log is the only node there is: a task
    assert job_level_logs(_facts(paste=("mid-run", None, 0))) == set()
    # a stem-named log that printed its own cluster spec is a task whose role is unknown
    facts["launcher"].cluster = {"worker": ["127.0.0.1:1", "127.0.0.1:2"]}
    assert job_level_logs(facts) == set()


def test_tasks_killed_within_seconds_were_stopped_together():
    facts = _facts(
        **{
            "worker:0": ("killed", "SIGTERM", 40.0),
            "worker:2": ("killed", "SIGTERM", 40.2),
            "worker:1": ("mid-run", None, 5.0),
        }
    )
    assert stopped_together(facts, set()) == {"worker:0", "worker:2"}
    # one kill alone is a fault, not the job's end; a crash exit is not an outside stop
    assert stopped_together(_facts(**{"worker:0": ("killed", "SIGKILL", 1)}), set()) == set()
    crash = _facts(**{"a:0": ("killed", "Segmentation fault", 1), "b:0": ("killed", "Aborted", 1)})
    assert stopped_together(crash, set()) == set()


def test_a_launcher_log_beside_the_tasks_is_never_the_verdict(tmp_path: Path):
    folder = tmp_path / "run"
    shutil.copytree(SAMPLES / "ps_killed", folder, ignore=shutil.ignore_patterns("truth.json"))
    last = analyzer.load(folder).diagnosis.nodes
    end = max(n.last_time for n in last if n.last_time is not None) + pd.Timedelta(seconds=30)
    (folder / "launcher.log").write_text(
        f"{end:%Y-%m-%d %H:%M:%S},000 - INFO - job ended; sending SIGKILL to every task\n"
    )
    run = analyzer.load(folder)
    assert (run.root_cause.node, run.root_cause.category) == ("ps:0", "node_crash")
    assert "launcher" in {n.node for n in run.diagnosis.nodes}


def test_two_logs_that_claim_one_task_are_told_apart_by_their_names(tmp_path: Path):
    """worker-1.log's TF_CONFIG says index 0, as worker-0.log's does: two tasks were given one
    index. The log named worker-1 stays worker:1 and its spec is the odd one."""
    folder = tmp_path / "run"
    shutil.copytree(SAMPLES / "healthy", folder, ignore=shutil.ignore_patterns("truth.json"))
    log = folder / "worker-1.log"
    log.write_text(log.read_text().replace('"index": 1}', '"index": 0}', 1))
    run = analyzer.load(folder)
    assert {"worker:0", "worker:1"} <= {n.node for n in run.diagnosis.nodes}
    assert any("two tasks claim one index" in m for m in run.diagnosis.consistency)
    assert any(
        "worker-1.log" in p.file and "one task index" in p.problem for p in run.ingest.problems
    )


SYNC_KILL = (
    Path(__file__).resolve().parent / "corpus" / "lab" / "tf1_sync" / "kill-worker-training-slurm"
)


def test_a_task_the_launchers_stop_did_not_name_had_died_before_it():
    """tf1_sync: worker:1 was killed at step 20 of 60; the chief waited for its gradients and
    logs nothing; the launcher's stop line names ps:0 and worker:0 only."""
    from analyzer.diagnose import gather

    run = analyzer.load(SYNC_KILL, condensed=True)
    ev = gather(run.timeline, run.findings, run.ingest, run.rules, [], run.progress)
    assert ev.told_to_stop == {"ps:0", "worker:0"}
    assert set(ev.stopped_short()) == {"worker:1"}
    assert (run.root_cause.node, run.root_cause.category) == ("worker:1", "node_crash")


def test_without_the_names_the_stop_from_outside_explains_every_short_log(tmp_path: Path):
    dst = tmp_path / "run"
    shutil.copytree(SYNC_KILL, dst)
    launcher = dst / "launcher.log"
    launcher.write_text(
        launcher.read_text(encoding="utf-8").replace(" to ps:0, worker:0", ""), encoding="utf-8"
    )
    from analyzer.diagnose import gather

    run = analyzer.load(dst, condensed=True)
    ev = gather(run.timeline, run.findings, run.ingest, run.rules, [], run.progress)
    assert ev.told_to_stop == set()
    assert ev.stopped_short() == {}


SYNC_PREEMPT = SYNC_KILL.parent / "preempt-worker-training-host"


def test_a_task_the_launcher_says_it_preempted_was_preempted():
    """tf1_sync: worker:1 got SIGTERM with no handler, so its log just stops; launcher.log's
    first line names it as preempted. The notice, not the log's end, says what happened."""
    run = analyzer.load(SYNC_PREEMPT, condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("worker:1", "preemption")
    assert any(e.node == "launcher" and "preempting" in e.text for e in run.root_cause.evidence)


def test_without_the_notice_the_same_stop_is_a_death(tmp_path: Path):
    run = changed_run(SYNC_PREEMPT, tmp_path, "launcher.log", without("preempting"))
    assert (run.root_cause.node, run.root_cause.category) == ("worker:1", "node_crash")


def test_a_notice_naming_another_task_does_not_move_the_verdict(tmp_path: Path):
    """The notice says who was preempted: the same notice about worker:0 never makes worker:1
    the preempted task."""

    def about_worker_0(text: str) -> str:
        return text.replace("preempting worker:1", "preempting worker:0")

    run = changed_run(SYNC_PREEMPT, tmp_path, "launcher.log", about_worker_0)
    assert run.root_cause.category != "preemption" or run.root_cause.node != "worker:1"


CLIENT_PREEMPT = SYNC_KILL.parent.parent / "tf1_ingraph" / "preempt-chief-training-stderr"


def test_a_notice_may_name_a_task_of_any_job():
    """tf1_ingraph: the in-graph client (job ``client``, a name TF_CONFIG chose) got SIGTERM and
    its log just stops; the launcher's notice names ``client:0``."""
    run = analyzer.load(CLIENT_PREEMPT, condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("client:0", "preemption")


def test_a_notice_naming_no_task_of_the_cluster_moves_nothing(tmp_path: Path):
    def about_a_stranger(text: str) -> str:
        return text.replace("preempting client:0", "preempting loader:7")

    run = changed_run(CLIENT_PREEMPT, tmp_path, "launcher.log", about_a_stranger)
    assert run.root_cause.category != "preemption"


TWINS = Path(__file__).resolve().parent / "corpus" / "lab" / "data_service"


def test_two_logs_that_claim_one_task_with_one_task_unlogged_name_that_task():
    """data_service: worker:1 was started with worker:0's index; the two logs are host-d/ and
    host-e/worker.out, whose names tell no index. Both say worker:0; worker:1 left no log:
    worker:1 was the task given the wrong index."""
    run = analyzer.load(TWINS / "wrong_index-worker-startup-host", condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("worker:1", "cluster_spec_mismatch")
    said = " ".join(e.why for e in run.root_cause.evidence)
    assert "host-d/worker.out" in said and "host-e/worker.out" in said


def test_with_one_of_the_two_logs_gone_there_is_no_twin(tmp_path: Path):
    folder = tmp_path / "run"
    shutil.copytree(TWINS / "wrong_index-worker-startup-host", folder)
    shutil.rmtree(folder / "host-d")
    run = analyzer.load(folder, condensed=True)
    assert run.root_cause.category != "cluster_spec_mismatch"
    assert not any("all say they are" in m for m in run.diagnosis.consistency)


BLOCKED = TWINS / "block-worker-training-pod"


def test_errors_after_the_stop_naming_a_task_it_stopped_are_its_doing():
    """data_service: a trainer frozen in a step; the launcher SIGTERMs every task; the
    dispatcher, a server whose log ended after start-up, exits on it and the trainers that
    still call it are refused. Those refusals follow the stop: the dispatcher is no culprit."""
    run = analyzer.load(BLOCKED, condensed=True)
    assert run.root_cause.node != "dispatcher:0"
    assert run.root_cause.category == "hang"
    assert any(n.startswith("Stop: ") for n in run.diagnosis.notes)


def test_without_the_launchers_stop_line_the_refusals_name_the_dispatcher(tmp_path: Path):
    run = changed_run(BLOCKED, tmp_path, "launcher.log", without("SIGTERM"))
    assert not any(n.startswith("Stop: ") for n in run.diagnosis.notes)
    assert run.root_cause.node == "dispatcher:0"


SRUN_KILL = Path(__file__).resolve().parent / "corpus" / "lab" / "mwms_slurm"


def test_sruns_line_names_the_task_whose_slurm_procid_is_its_number():
    """mwms_slurm: worker:0 killed at start-up; srun's own 'srun: error: localhost: task 0:
    Killed' (src/srun/launch.c) names the task whose log printed SLURM_PROCID=0."""
    run = analyzer.load(SRUN_KILL / "kill-chief-startup-srun_label", condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("worker:0", "node_crash")
    assert run.root_cause.pattern_id == "process.srun_task_ended"


def test_without_the_ranks_printed_sruns_label_still_names_the_task(tmp_path: Path):
    # srun --label puts the task's number before each of its lines: the same number as its
    # SLURM_PROCID, so the label alone tells which stream srun's 'task 0' is
    run = changed_run(
        SRUN_KILL / "kill-chief-startup-srun_label",
        tmp_path,
        "slurm-5183208.out",
        lambda t: t.replace("SLURM_PROCID=", "SLURM_RANK_NOT="),
    )
    assert (run.root_cause.node, run.root_cause.category) == ("worker:0", "node_crash")
    assert run.root_cause.pattern_id == "process.srun_task_ended"


def test_without_the_ranks_printed_or_labelled_srun_names_no_task(tmp_path: Path):
    # one file per task (srun --output=%j-%t), no label, no SLURM_PROCID printed: nothing says
    # which task is srun's 'task 1'
    run_dir = tmp_path / "run"
    shutil.copytree(SRUN_KILL / "kill-worker-startup-srun_named", run_dir)
    for path in run_dir.glob("mwms-train-*.out"):
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("SLURM_PROCID=", "SLURM_RANK_NOT="), encoding="utf-8")
    run = analyzer.load(run_dir, condensed=True)
    assert not any("srun's task" in (e.why or "") for e in run.root_cause.evidence)
    labelled = analyzer.load(SRUN_KILL / "kill-worker-startup-srun_named", condensed=True)
    assert any("srun's task 1 is worker:1" in (e.why or "") for e in labelled.root_cause.evidence)


def test_a_task_up_all_along_that_never_joined_was_told_another_place_to_join():
    """mwms_slurm: worker:1 started its server before the coordination service began to wait
    for it and logged on, with no error, for as long as it waited: it was up all along and
    never reached the service (another port base): its configuration, not its start-up."""
    run = analyzer.load(SRUN_KILL / "wrong_address-worker-startup-srun_label", condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("worker:1", "cluster_spec_mismatch")


def test_a_task_whose_log_stops_while_it_is_awaited_was_not_up_all_along(tmp_path: Path):
    # the same run, worker:1's lines after its server start gone (its SIGTERM at the job's
    # end): its log stops while the service still waits, which says nothing of where it joined
    run = changed_run(
        SRUN_KILL / "wrong_address-worker-startup-srun_label",
        tmp_path,
        "slurm-5183223.out",
        lambda t: "".join(x for x in t.splitlines(keepends=True) if not x.startswith("1: W0000")),
    )
    assert run.root_cause.category != "cluster_spec_mismatch"


def _skewed(tmp_path: Path, style: str, prefix: str) -> Path:
    """A lab run as a host whose clock is 20 s ahead would have logged it (the truth's failing
    node's files shifted: ``analyzer.evaluate.variants``)."""
    from analyzer.evaluate.variants import VARIANTS, write_variant

    root = Path(__file__).resolve().parent / "corpus" / "lab"
    runs = [p for p in (root / style).iterdir() if p.name.startswith(prefix)]
    (out,) = write_variant(runs[:1], root, tmp_path / "v", VARIANTS["culprit-clock+20s"])
    return out


def test_a_task_the_stop_line_names_was_stopped_with_the_job_whatever_its_clock(tmp_path: Path):
    """mwms_keras, worker:1 given another address: nobody trains and the launcher's stop line
    names chief:0, worker:0 and worker:1. With worker:1's clock 20 s ahead, its 'SIGTERM
    caught' comes 20 s after the others' and is no longer within the window of a stop that
    hit every task at once; the stop line still names it, so it is no preemption."""
    run = analyzer.load(_skewed(tmp_path, "mwms_keras", "wrong_address-"), condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("worker:1", "cluster_spec_mismatch")


def test_a_task_the_stop_line_does_not_name_keeps_its_own_sigterm(tmp_path: Path):
    # the same skewed copy with worker:1 left out of the launcher's stop lines
    run_dir = _skewed(tmp_path, "mwms_keras", "wrong_address-")
    launcher = run_dir / "launcher.log"
    launcher.write_text(
        launcher.read_text(encoding="utf-8").replace(", worker:1", ""), encoding="utf-8"
    )
    run = analyzer.load(run_dir, condensed=True)
    assert run.root_cause.category == "preemption"


SYSTEMD = Path(__file__).resolve().parent / "corpus" / "lab" / "pss_systemd"


def test_a_unit_stopped_before_the_job_s_teardown_was_taken_away():
    """pss_systemd: `systemctl stop` of worker:1's unit mid-training (systemd's 'Stopping ...'
    then 'Stopped ...'); the chief trains on, says goodbye, and the other units are stopped
    5 s after worker:1's, once the chief is done: the job's teardown, not the same stop."""
    run = analyzer.load(SYSTEMD / "preempt-worker-training-journal_short_unit", condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("worker:1", "preemption")


def test_a_unit_stopped_with_the_teardown_is_no_preemption(tmp_path: Path):
    # the same run with worker:1's stop moved to the teardown's second (17:07:39 -> 17:07:44)
    name = "tfhost-4/tf-worker@1.service.log"
    run = changed_run(
        SYSTEMD / "preempt-worker-training-journal_short_unit",
        tmp_path,
        name,
        lambda t: t.replace("Nov 24 17:07:39 tfhost-4 systemd", "Nov 24 17:07:44 tfhost-4 systemd"),
    )
    assert run.root_cause.category != "preemption"
