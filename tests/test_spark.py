"""Jobs run by Apache Spark, read from the recorded mwms_spark runs (real Spark standalone
clusters: daemons, spark-submit and executors as Spark leaves their logs): log4j's default
"yy/MM/dd HH:mm:ss LEVEL logger: message" lines, the JVM daemons' logs named after their class,
and a frozen task whose end Spark reported only after its peers had given up on it (see
tests/corpus/lab/protocol.json: mwms_spark was measured once untouched, then tuned)."""

from __future__ import annotations

import shutil
from pathlib import Path

import analyzer
from analyzer.formats import parse_lines
from analyzer.identity import hint_from_name
from tests.conftest import ROOT

SPARK = ROOT / "tests" / "corpus" / "lab" / "mwms_spark"


def _load(name: str):
    return analyzer.load(SPARK / name, condensed=True)


def test_log4j_short_lines_are_parsed_with_their_two_digit_year():
    daemon = next((SPARK / "healthy-none-full-spark_workers" / "logs").glob("*Master*"))
    parsed = parse_lines(daemon.read_bytes())
    assert parsed.formats.get("log4j_short", 0) >= 10
    rows = [r for r in parsed.table.to_pylist() if r["message"] == "RECEIVED SIGNAL TERM"]
    assert rows and (rows[0]["level"], rows[0]["logger"]) == ("ERROR", "Master")
    timeline = analyzer.load(daemon).timeline
    spark = timeline[timeline["format"] == "log4j_short"]
    assert len(spark) >= 10
    assert set(spark["ts_origin"]) == {"parsed"}
    assert {t.year for t in spark["ts"]} == {2026}  # "26/11/25": this century's 26


def test_log4j_levels_trace_reads_as_debug_and_error_lines_are_kept():
    data = (
        b"26/11/25 01:15:20 TRACE Worker: tick\n"
        + b"26/11/25 01:15:20 INFO Worker: filler\n" * 200
        + b"26/11/25 01:15:21 ERROR Worker: something broke\n"
        + b"26/11/25 01:15:22 INFO Worker: filler\n" * 200
    )
    from analyzer.formats import Keep

    table = parse_lines(data, Keep("never-in-these-lines")).table
    levels = dict(zip(table["message"].to_pylist(), table["level"].to_pylist(), strict=True))
    assert levels["tick"] == "DEBUG"
    assert levels["something broke"] == "ERROR"  # kept by its level, no keyword needed


def test_a_jvm_daemons_log_named_after_its_class_names_no_task():
    for name in (
        "logs/spark-root-org.apache.spark.deploy.worker.Worker-1-vm.out",
        "spark-root-org.apache.spark.deploy.master.Master-1-host.out",
    ):
        assert hint_from_name(name).node is None, name
    # a task's own name keeps its word, dots or not
    assert hint_from_name("job.worker.1.log").node == "worker:1"
    assert hint_from_name("logs/worker-2.stderr").node == "worker:2"


def test_spark_daemon_logs_are_job_level_logs_and_a_healthy_job_is_healthy():
    run = _load("healthy-none-full-spark_workers")
    nodes = {n.node for n in run.diagnosis.nodes}
    assert {"worker:0", "worker:1", "worker:2"} <= nodes
    assert not {"master:1", "worker:3"} & nodes  # the daemons' file names are no tasks
    worker1 = next(n for n in run.diagnosis.nodes if n.node == "worker:1")
    assert not any("deploy.worker.Worker" in f for f in worker1.files)
    assert run.root_cause.category == "none"


def _edited(run: Path, tmp_path: Path, edit) -> analyzer.Run:
    dst = tmp_path / "run"
    shutil.copytree(run, dst)
    for path in dst.rglob("stderr"):
        path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    return analyzer.load(dst, condensed=True)


def test_a_frozen_task_ended_after_its_peers_gave_up_is_how_they_lost_it(tmp_path):
    # worker:1 was frozen; its peers' coordination service reported it had stopped sending
    # heartbeats; Spark then ended the stage, and the Python worker reported the TensorFlow
    # process's exit: the exit is the teardown, the heartbeat check what failed
    name = "stall_notimeout-worker-training-spark_executors"
    run = _load(name)
    assert (run.root_cause.node, run.root_cause.category) == ("worker:1", "coordination_failure")
    # the same run where the peers had lost a connection to it instead: it was gone first (and
    # without their reports naming it the blame moves too: only the category is asserted)
    closed = _edited(
        SPARK / name,
        tmp_path,
        lambda text: text.replace(
            "The following tasks are unhealthy (stopped sending heartbeats):",
            "Connection reset by peer:",
        ),
    )
    assert closed.root_cause.category == "node_crash"


def test_a_frozen_leader_ended_after_its_peers_timed_out_exceeded_a_deadline():
    run = _load("stall_deadline-chief-training-spark_executors")
    assert (run.root_cause.node, run.root_cause.category) == ("worker:0", "deadline_exceeded")


def test_a_frozen_task_whose_only_words_are_of_its_end_is_the_one_its_peers_waited_on(tmp_path):
    # worker:1 froze; its peers' collectives timed out; Spark then ended every task, and
    # worker:1's last words (after all its peers' first errors) are the report of its end
    name = "stall_deadline-worker-training-spark_submit_log"
    run = _load(name)
    assert (run.root_cause.node, run.root_cause.category) == ("worker:1", "deadline_exceeded")
    # the same run where worker:1's last words are an error of its own kind (an OOM): it is no
    # longer a stopped process that only ended
    dst = tmp_path / "run"
    shutil.copytree(SPARK / name, dst)
    own = next(dst.glob("work/*/0/stderr"))  # worker:1's executor (truth.json spark_executors)
    text = own.read_text(encoding="utf-8").replace(
        "RuntimeError: TensorFlow worker 2 exited with code 1",
        "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating "
        "tensor with shape[1024,1024]",
    )
    own.write_text(text, encoding="utf-8")
    oom = analyzer.load(dst, condensed=True)
    assert (oom.root_cause.node, oom.root_cause.category) != ("worker:1", "deadline_exceeded")
