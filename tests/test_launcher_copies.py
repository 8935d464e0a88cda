"""A launcher's merged output beside the tasks' own logs: its names for the processes, its
copies of their lines, its own untimed lines, and its teardown of what is left once one
process exits. Read on real honcho runs (tests/corpus/lab/mwms_honcho: honcho prints each
process's lines behind ``HH:MM:SS <name> | `` and its own behind ``HH:MM:SS system | ``; with
``-c worker=3`` its names count from 1 while the tasks count from 0)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa

import analyzer
from analyzer.diagnose.facts import Facts, program_node
from analyzer.timeline import SCHEMA, inherit_file_times

HONCHO = Path(__file__).resolve().parent / "corpus" / "lab" / "mwms_honcho"


def _verdict(run: analyzer.Run) -> tuple[str | None, str]:
    return run.root_cause.node, run.root_cause.category


def test_a_launchers_name_for_a_process_is_the_task_its_lines_say():
    """honcho's worker.2 printed task 1's TF_CONFIG: its name is worker:1's, not worker:2's;
    with tee, honcho.log's copy of those lines is a job-level copy of worker:1."""
    run = analyzer.load(HONCHO / "wrong_count-worker-startup-honcho_tee", condensed=True)
    nodes = run.ingest.nodes
    assert nodes["worker:1"].aliases == ["worker.2"]
    assert nodes["worker:0"].aliases == ["worker.1"]
    assert nodes["honcho/worker.2"].copy_of == "worker:1"
    assert nodes["worker:1"].copy_of is None


def test_program_names_resolve_by_alias_before_the_name_itself():
    facts = {
        "worker:0": Facts("worker:0", aliases=["worker.1"]),
        "worker:1": Facts("worker:1", aliases=["worker.2"]),
        "worker:2": Facts("worker:2", aliases=["worker.3"]),
    }
    assert program_node("worker.2", facts) == "worker:1"
    assert program_node("worker.3", facts) == "worker:2"
    # no alias: read as a log file's name is (supervisord's tf-worker-1)
    assert program_node("tf-worker-1", facts) == "worker:1"
    assert program_node("tf-ps-0", facts) is None  # (no such task)


def test_a_launchers_untimed_lines_take_the_time_of_the_line_before_them_in_the_file():
    run = analyzer.load(HONCHO / "straggler-worker-training-honcho_log", condensed=True)
    tl = run.timeline
    system = tl[tl["node"].astype(str) == "honcho/system"]
    assert len(system) and system["ts"].notna().all()
    assert set(system["ts_origin"].astype(str)) == {"inherited"}
    stop = system[system["message"].astype(str).str.contains("sending SIGTERM")].iloc[0]
    finished = tl[tl["message"].astype(str).str.contains("training finished")]
    assert stop["ts"] >= finished["ts"].max() - pd.Timedelta(seconds=1)


def _table(rows: list[tuple[str, int, object, str]]) -> pa.Table:
    n = len(rows)
    columns = {name: pa.nulls(n, SCHEMA.field(name).type) for name in SCHEMA.names}
    columns["file"] = pa.array([r[0] for r in rows], SCHEMA.field("file").type)
    columns["line_no"] = pa.array([r[1] for r in rows], SCHEMA.field("line_no").type)
    columns["ts"] = pa.array(
        [pd.Timestamp(r[2]) if r[2] else None for r in rows], SCHEMA.field("ts").type
    )
    columns["ts_origin"] = pa.array([r[3] for r in rows], SCHEMA.field("ts_origin").type)
    return pa.table(columns, schema=SCHEMA)


def test_inheriting_a_files_time_uses_own_times_only_and_stays_in_the_file():
    t1, t2 = "2026-11-25T07:00:01Z", "2026-11-25T07:00:09Z"
    table = _table(
        [
            ("a.log", 1, None, "none"),  # before the file's first time: the line after's
            ("a.log", 2, t1, "parsed"),
            ("a.log", 3, "2026-11-25T06:00:00Z", "inherited"),  # an inherited time is no source
            ("a.log", 4, None, "none"),
            ("a.log", 5, t2, "parsed"),
            ("b.log", 1, None, "none"),  # a file with no time of its own keeps none
        ]
    )
    out = inherit_file_times(table).to_pandas()
    assert out["ts"].tolist()[:2] == [pd.Timestamp(t1)] * 2
    assert out["ts"].iloc[3] == pd.Timestamp(t1)
    assert pd.isna(out["ts"].iloc[5])
    assert out["ts_origin"].tolist() == [
        "inherited",
        "parsed",
        "inherited",
        "inherited",
        "parsed",
        "none",
    ]


def test_honchos_teardown_once_the_first_process_exits_is_no_preemption():
    """Every worker said its training finished; honcho then SIGTERMed the two still running
    together ('sending SIGTERM to worker.1', '... worker.2'): the slow worker's 'SIGTERM
    caught' is the teardown, and what held the job back is the straggler."""
    run = analyzer.load(HONCHO / "straggler-worker-training-honcho_log", condensed=True)
    assert _verdict(run) == ("worker:1", "straggler")


def test_a_task_honcho_stopped_with_another_after_a_peer_gave_up_was_not_preempted():
    """The frozen worker:0 (the coordination service's host) logs nothing; worker:2 times out
    and exits, and honcho SIGTERMs worker0.1 and worker1.1 together: worker:1's 'SIGTERM
    caught' is that teardown, the service giving up on worker:0 is what happened."""
    run = analyzer.load(HONCHO / "stall_notimeout-chief-training-honcho_colour", condensed=True)
    assert _verdict(run) == ("worker:0", "coordination_failure")


def test_a_copy_of_a_tasks_lines_blames_nothing_a_second_time():
    """worker.2 (task 1) was given a four-worker TF_CONFIG; its peers' collective errors name
    worker:0, and honcho.log repeats them: counted once, the odd spec decides."""
    run = analyzer.load(HONCHO / "wrong_count-worker-startup-honcho_tee", condensed=True)
    assert _verdict(run) == ("worker:1", "cluster_spec_mismatch")


def test_a_launchers_own_log_ending_in_its_teardown_does_not_spoil_a_good_end():
    """worker:1 started 15 s late, then every worker trained to the end and said so; honcho's
    log ends with its SIGTERMs to the two still running: a late start the job got over."""
    run = analyzer.load(HONCHO / "late-worker-startup-honcho_tee", condensed=True)
    assert _verdict(run) == (None, "none")


def test_the_preemption_handlers_exit_after_its_checkpoint_is_an_orderly_end():
    """worker:1 got the termination notice; every worker saved a checkpoint and exited
    ('PreemptionCheckpointHandler: checkpoint saved. Exiting.'): worker:0's log ends well."""
    run = analyzer.load(HONCHO / "preempt-worker-training-honcho_tee", condensed=True)
    assert _verdict(run) == ("worker:1", "preemption")
    ending = {n.node: n.ending for n in run.diagnosis.nodes}
    assert ending["worker:0"] == "clean"
