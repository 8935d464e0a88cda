"""The lab's Spark launcher (analyzer/lab/spark.py, tasks/spark_app.py) and the recorded
mwms_spark runs' files.

Needs neither Spark nor TensorFlow (the one test that runs a Spark cluster skips without
pyspark and Java). Reads logs and the lab's truth.json only: tfdiag's verdicts on these runs
are not computed here (mwms_spark is held out and untouched; see
tests/corpus/lab/protocol.json).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from analyzer.lab import matrix, spark
from analyzer.lab._runner import TASKS_DIR

ROOT = Path(__file__).resolve().parents[1]
RUNS = sorted((ROOT / "tests" / "corpus" / "lab" / "mwms_spark").glob("*/truth.json"))
NODES = ["worker:0", "worker:1", "worker:2"]
GATHERED = ["127.0.0.1:41001", "127.0.0.1:41002", "127.0.0.1:41003"]


def _app():
    spec = importlib.util.spec_from_file_location("spark_app", TASKS_DIR / spark.APP)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # no pyspark import at module level
    return mod


def test_tf_config_from_the_gathered_addresses():
    app = _app()
    assert app.tf_config(GATHERED, 1, None) == {
        "cluster": {"worker": GATHERED},
        "task": {"type": "worker", "index": 1},
    }
    # a missing task: the gathered workers and the one no partition runs
    assert app.tf_config([*GATHERED[:2], "127.0.0.1:49999"], 0, None)["cluster"]["worker"][2] == (
        "127.0.0.1:49999"
    )


def test_tf_config_edits_are_the_spec_faults():
    app = _app()
    wrong = app.tf_config(GATHERED, 1, {"kind": "wrong_address", "peer": 0, "port": 50000})
    assert wrong["cluster"]["worker"] == ["127.0.0.1:50000", *GATHERED[1:]]
    assert wrong["task"]["index"] == 1
    more = app.tf_config(GATHERED, 1, {"kind": "wrong_count", "extra": "127.0.0.1:50001"})
    assert len(more["cluster"]["worker"]) == 4 and more["cluster"]["worker"][:3] == GATHERED
    other = app.tf_config(GATHERED, 1, {"kind": "wrong_index", "index": 0})
    assert other["task"]["index"] == 0 and other["cluster"]["worker"] == GATHERED


def test_the_executor_is_read_from_the_ancestors_command_lines():
    python = b"/venv/bin/python\0-m\0pyspark.daemon\0"
    jvm = (
        b"/usr/bin/java\0-cp\0jars/*\0org.apache.spark.executor.CoarseGrainedExecutorBackend\0"
        b"--driver-url\0spark://CoarseGrainedScheduler@127.0.0.1:4\0--executor-id\0002\0"
        b"--hostname\0127.0.0.1\0--cores\0001\0--app-id\0app-20261125010901-0000\0"
    )
    assert spark.executor_of([python, python, jvm]) == ("2", "app-20261125010901-0000")
    assert spark.executor_of([python]) is None


def test_spark_s_own_file_names():
    assert spark.daemon_log(spark.MASTER, 1, "root", "vm") == (
        "logs/spark-root-org.apache.spark.deploy.master.Master-1-vm.out"
    )
    assert spark.executor_files("app-1-0000", "2") == [
        "work/app-1-0000/2/stdout",
        "work/app-1-0000/2/stderr",
    ]
    assert spark.driver_files("spark_submit_log") == ["spark-submit.log"]
    assert spark.driver_files("spark_workers") == ["spark-submit.out", "spark-submit.err"]


def test_layouts_one_executor_per_task():
    # one worker of 3 cores with 1-core executors, or 3 workers of 1 core with default sizing
    assert spark.workers_of("spark_executors") == [3]
    assert "spark.executor.cores=1" in spark.submit_conf("spark_executors")
    assert spark.workers_of("spark_workers") == [1, 1, 1]
    assert spark.submit_conf("spark_workers") == []
    assert set(spark.OUTPUT_FORMS) == set(spark.NAMINGS)


def test_finish_lists_every_other_file_as_job_level(tmp_path):
    run = spark.Spark(tmp_path, "spark_executors", 0, NODES, tmp_path / "scratch")
    run.command = ["/x/bin/spark-submit", "--master", "spark://127.0.0.1:7077", "/t/app.py"]
    run.executors = {n: (str(i), "app-1-0000") for i, n in enumerate(NODES)}
    files = [f for i in range(4) for f in spark.executor_files("app-1-0000", str(i))]
    files += ["spark-submit.out", "spark-submit.err", spark.daemon_log(spark.MASTER, 1, "u", "h")]
    for f in files:
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("x\n")
    truth = {"node_files": {n: run.node_files(n) for n in NODES}}
    run.finish(truth)
    assert truth["node_files"]["worker:1"] == spark.executor_files("app-1-0000", "1")
    # an executor that held no task (one the master started after a loss) is job-level
    assert truth["launcher_files"] == sorted(
        [
            "logs/spark-u-org.apache.spark.deploy.master.Master-1-h.out",
            "spark-submit.err",
            "spark-submit.out",
            "work/app-1-0000/3/stderr",
            "work/app-1-0000/3/stdout",
        ]
    )
    assert truth["spark_executors"] == {"worker:0": "0", "worker:1": "1", "worker:2": "2"}
    assert truth["spark_app_id"] == "app-1-0000"
    assert truth["spark_submit_command"].startswith("spark-submit --master spark://127.0.0.1:7077")


def test_the_plan_edits_the_gathered_cluster():
    style = matrix.STYLES["mwms_spark"]
    cluster = {"worker": ["127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"]}
    specs = {n: matrix.launch._tfc(cluster, n) for n in NODES}
    fault = matrix.FAULTS["wrong_address"]
    run = matrix.launch._Run(NODES, "worker:1", fault.category)
    run.extra = {"peer": "worker:0", "wrong_address": "127.0.0.1:9", "right_address": "x"}
    plan = matrix.launch._spark_plan(style, fault, cluster, specs, "worker:1", run, {}, {})
    assert plan["spec"] == {"1": {"kind": "wrong_address", "peer": 0, "port": 9}}
    assert plan["env"]["TZ"] == "UTC" and "extra_workers" not in plan
    missing = matrix.launch._Run(NODES, "worker:2", "session_blocked", missing=["worker:2"])
    plan = matrix.launch._spark_plan(
        style, matrix.FAULTS["missing"], cluster, specs, "worker:2", missing, {}, {}
    )
    assert plan["extra_workers"] == ["127.0.0.1:3"]
    dup = matrix.launch._Run(NODES, "worker:1", "decide")
    dup.extra = {"shared_address": "127.0.0.1:1", "port_shared_with": "worker:0"}
    plan = matrix.launch._spark_plan(
        style, matrix.FAULTS["dup_port"], cluster, specs, "worker:1", dup, {"worker:1": 3.0}, {}
    )
    assert plan["fixed_port"] == {"1": 1, "0": 1} and plan["delay"] == {"1": 3.0}


def test_spark_cells_rotate_over_the_three_layouts():
    cells = [c for c in matrix.cells() if c.style == "mwms_spark"]
    assert 30 <= len(cells) <= 36
    counts = {n: sum(c.naming == n for c in cells) for n in spark.NAMINGS}
    assert max(counts.values()) - min(counts.values()) <= 1
    faults = {(c.fault, c.role) for c in cells}
    assert ("missing", "last") in faults and ("executor_lost", "worker") in faults
    assert ("preempt_job", "chief") in faults
    assert matrix.STYLES["mwms_spark"].roles["last"] == "worker:2"
    assert matrix.STYLES["mwms_spark"].config == "spark"


@pytest.mark.skipif(spark.check() is not None, reason="needs pyspark and Java")
def test_spark_home_has_the_daemon_script():
    home = spark.spark_home()
    assert (home / "sbin" / "spark-daemon.sh").is_file()
    assert (home / "bin" / "spark-submit").is_file()


@pytest.mark.parametrize("truth_path", RUNS, ids=lambda p: p.parent.name)
def test_recorded_run_has_spark_s_files(truth_path: Path):
    truth = json.loads(truth_path.read_text())
    folder = truth_path.parent
    started = [n for n in truth["nodes"] if n not in truth["missing_nodes"]]
    app = truth["spark_app_id"]
    for node in started:
        executor = truth["spark_executors"][node]
        assert truth["node_files"][node] == spark.executor_files(app, executor)
        # the executor's own log4j lines and the task's TensorFlow worker in one stderr
        text = (folder / truth["node_files"][node][1]).read_text(errors="replace")
        assert "CoarseGrainedExecutorBackend" in text and "TF_CONFIG=" in text
    executors = [truth["spark_executors"][n] for n in started]
    assert len(set(executors)) == len(executors)  # one task per executor
    launcher = set(truth["launcher_files"])
    assert set(spark.driver_files(truth["naming"])) <= launcher
    daemons = {f for f in launcher if f.startswith(f"{spark.LOG_DIR}/")}
    assert bool(daemons) == (truth["naming"] != "spark_submit_log")
    if truth["naming"] == "spark_workers":
        assert len([f for f in daemons if spark.WORKER in f]) == 3
