"""GNU parallel's words about the jobs it ran, read on its real runs (tests/corpus/lab/
pss_parallel): ``--tag`` with two arguments (``worker 1<TAB>`` before each line), its
``parallel: This job failed:`` line and the failed job's command after it, and ``--joblog``'s
rows (Exitval, Signal, Command)."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import changed_run, without

import analyzer
from analyzer.formats import LINE_FORMATS
from analyzer.prefixes import learn

PARALLEL = Path(__file__).resolve().parent / "corpus" / "lab" / "pss_parallel"


def _verdict(run: analyzer.Run) -> tuple[str | None, str]:
    return run.root_cause.node, run.root_cause.category


def test_a_tag_of_two_words_is_one_source():
    lines = (PARALLEL / "healthy-none-full-par_tag" / "parallel.log").read_text().splitlines()
    formats = [re.compile(f.start) for f in LINE_FORMATS]
    pattern, group = learn(lines[:400], formats)
    assert group == "rank"
    tagged = [m["rank"] for line in lines if (m := re.match(pattern, line))]
    assert {"chief 0", "ps 0", "ps 1", "worker 0", "worker 1"} <= set(tagged)


def test_each_tagged_task_is_its_own_node():
    run = analyzer.load(PARALLEL / "healthy-none-full-par_tag", condensed=True)
    tasks = {n for n in run.ingest.nodes if ":" in n}
    assert tasks == {"chief:0", "ps:0", "ps:1", "worker:0", "worker:1"}


def test_parallels_job_failed_line_names_the_task_of_the_command_after_it():
    """--halt now,fail=1: the chief is SIGKILLed mid-training, parallel stops the rest at once
    (no task logs an error) and says 'This job failed:' above the chief's command."""
    run = analyzer.load(PARALLEL / "kill-chief-training-par_tag", condensed=True)
    assert _verdict(run) == ("chief:0", "node_crash")
    failed = run.timeline[run.timeline["message"].astype(str).str.contains("This job failed")]
    assert "--job chief --index 0" in str(failed["detail"].iloc[0])


def test_without_that_line_nothing_says_which_job_failed(tmp_path: Path):
    run = changed_run(
        PARALLEL / "kill-chief-training-par_tag",
        tmp_path,
        "parallel.log",
        without("This job failed"),
    )
    assert _verdict(run) == (None, "none")


def test_a_joblog_row_with_a_sigterms_exit_is_a_task_taken_away():
    """The chief got SIGTERM from outside (no handler; its shell exits 143); joblog.tsv's row
    says so, and parallel's 'This job failed:' names the same job."""
    run = analyzer.load(PARALLEL / "preempt-chief-training-par_files", condensed=True)
    assert _verdict(run) == ("chief:0", "preemption")


def test_the_same_row_with_a_kills_exit_is_a_death(tmp_path: Path):
    run = changed_run(
        PARALLEL / "preempt-chief-training-par_files",
        tmp_path,
        "joblog.tsv",
        lambda text: text.replace("\t143\t0\t", "\t137\t0\t"),
    )
    assert _verdict(run) == ("chief:0", "node_crash")


def test_a_job_stopped_with_no_line_says_it_did_not_finish():
    """The frozen worker logs nothing, the chief stops stepping, and the time limit's SIGTERM
    to parallel leaves no line: no culprit can be named, but the job did not finish."""
    run = analyzer.load(PARALLEL / "stall_notimeout-worker-training-par_results", condensed=True)
    rc = run.root_cause
    assert (rc.node, rc.category) == (None, "none")
    assert "did not finish" in rc.summary and rc.confidence < 0.5
    healthy = analyzer.load(PARALLEL / "healthy-none-full-par_results", condensed=True)
    assert healthy.root_cause.summary.startswith("Nothing failed")
