"""Jobs launched by Open MPI's mpirun, read from the recorded mwms_mpi runs (real mpirun output):
its tags with and without --timestamp-output, a rank's pieces joined, the launcher's rank as a
task, its untagged copy of every rank's output as a job-level log, and its words on how a rank
ended (see tests/corpus/lab/protocol.json: mwms_mpi was measured once untouched, then tuned)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.compute as pc

import analyzer
from analyzer.formats import parse_lines
from analyzer.identity import facts_from_content
from tests.conftest import ROOT, changed_run, without

MPI = ROOT / "tests" / "corpus" / "lab" / "mwms_mpi"


def _load(name: str):
    return analyzer.load(MPI / name, condensed=True)


def test_timestamped_tags_part_one_stream_by_rank_and_keep_every_line():
    path = next((MPI / "kill-worker-startup-mpi_timestamp_output").glob("job-*.out"))
    parsed = parse_lines(path.read_bytes())
    table = parsed.table
    assert parsed.wrapper == "mpirun"
    assert set(pc.unique(table["rank"]).drop_null().to_pylist()) == {"0", "1", "2"}
    assert table.num_rows + sum(parsed.rejected.values()) == parsed.lines_read
    messages = [m for m in table["message"].to_pylist() if m]
    assert not any("<stdout>:" in m or "<stderr>:" in m for m in messages)  # no tag left inside
    # each rank's TF_CONFIG, printed in pieces, reads whole and names its own task
    by_rank = {}
    for rank, message in zip(table["rank"].to_pylist(), table["message"].to_pylist(), strict=True):
        if message and message.startswith("TF_CONFIG="):
            by_rank[rank] = facts_from_content(pc.cast([message], "large_string")).node
    assert by_rank == {"0": "worker:0", "1": "worker:1", "2": "worker:2"}


def test_a_ranks_pieces_are_joined_until_its_newline():
    # mpirun tags each write(): print()'s text, another rank's piece, then each newline behind
    # a tag of its own (the shape of the recorded files, with short texts)
    data = (
        b"[1,1]<stdout>:step 3 done[1,0]<stdout>:step 4 done[1,1]<stdout>:\n"
        b"[1,0]<stdout>:\n"
        b"[1,2]<stderr>:whole line\n"
    )
    table = parse_lines(data).table
    columns = (table[c].to_pylist() for c in ("line_no", "rank", "message"))
    rows = list(zip(*columns, strict=True))
    assert rows == [(1, "1", "step 3 done"), (2, "0", "step 4 done"), (3, "2", "whole line")]


def test_mpiruns_copy_of_every_rank_is_a_job_level_log_not_rank_0():
    run = _load("healthy-none-full-mpi_output_filename")
    nodes = {n.node: n for n in run.diagnosis.nodes}
    assert "mpirun" in nodes
    assert all("mpirun.log" not in f for n in nodes.values() if n.node != "mpirun" for f in n.files)
    assert run.root_cause.category == "none"


def test_stdout_and_stderr_in_one_folder_are_one_process():
    run = _load("dup_port-worker-startup-mpi_output_filename")
    files = {n.node: sorted(n.files) for n in run.diagnosis.nodes}
    assert set(files) == {"worker:0", "worker:1", "worker:2", "mpirun"}
    assert files["worker:1"] == ["mpi-out/1/rank.1/stderr", "mpi-out/1/rank.1/stdout"]
    assert (run.root_cause.node, run.root_cause.category) == ("worker:1", "address_in_use")


def test_mpiruns_report_of_a_rank_killed_names_its_task(tmp_path: Path):
    """'mpirun noticed that process rank 0 ... exited on signal 9': rank 0 is the task whose
    log is rank 0; its word outranks that task's own last line, a start-up wait."""
    run = _load("kill-chief-startup-mpi_output_filename")
    assert (run.root_cause.node, run.root_cause.category) == ("worker:0", "node_crash")
    bare = changed_run(
        MPI / "kill-chief-startup-mpi_output_filename",
        tmp_path,
        "mpirun.log",
        without("exited on signal"),
    )
    assert (bare.root_cause.node, bare.root_cause.category) != ("worker:0", "node_crash")


def test_a_sigterm_after_peers_named_the_task_is_the_launchers_teardown():
    """A frozen rank, resumed by mpirun's abort (SIGCONT, SIGTERM), logs TensorFlow's 'SIGTERM
    caught' seconds after its peers reported it unhealthy: not a preemption."""
    run = _load("stall_notimeout-worker-training-mpi_output_filename")
    assert (run.root_cause.node, run.root_cause.category) == ("worker:1", "coordination_failure")
    # (the notice itself is there: it is read, and set aside)
    assert any(
        f == "preemption.sigterm_caught" for f in run.findings["pattern_id"].dropna().tolist()
    )


def test_mpiruns_tags_inside_a_collectors_prefix_part_the_stream_as_without_it():
    """An MPI Operator's launcher pod: ``kubectl logs --timestamps`` puts its RFC 3339 time
    before each line of mpirun's output. The tags inside are read as without the prefix: the
    same events, each with the same rank."""
    for run in ("kill-worker-training-mpi_tag_output", "kill-worker-startup-mpi_timestamp_output"):
        data = next((MPI / run).glob("job-*.out")).read_bytes()
        lines = data.split(b"\n")
        stamped = b"\n".join(
            b"2026-11-24T22:22:%02d.%09dZ %s" % (i % 60, i, line) if line else line
            for i, line in enumerate(lines)
        )
        plain, wrapped = parse_lines(data), parse_lines(stamped)
        assert (plain.wrapper, wrapped.wrapper) == ("mpirun", "kubectl+mpirun")

        def events(parsed):
            t = parsed.table
            return list(zip(t["rank"].to_pylist(), t["message"].to_pylist(), strict=True))

        assert events(wrapped) == events(plain)


def test_a_rank_that_spoke_only_after_its_peers_timed_out_was_waited_on(tmp_path: Path):
    """worker:1 frozen (SIGSTOP) under a 5 s collective timeout: its peers time out and exit,
    mpirun's abort wakes it (SIGCONT, SIGTERM), and only then does it log, of its peers being
    gone. Its log does not stop early; its peers' timeouts say they waited on it."""
    name = "stall_deadline-worker-training-mpi_timestamp_output"
    run = _load(name)
    assert (run.root_cause.node, run.root_cause.category) == ("worker:1", "deadline_exceeded")
    # the same run without the peers' timeouts: nothing says they waited on anyone
    job = next((MPI / name).glob("job-*.out")).name
    bare = changed_run(
        MPI / name, tmp_path, job, without("timed out", "DEADLINE_EXCEEDED", "DeadlineExceeded")
    )
    assert (bare.root_cause.node, bare.root_cause.category) != ("worker:1", "deadline_exceeded")


def test_a_pastes_fences_around_one_ranks_tagged_lines_are_that_ranks(tmp_path: Path):
    """A paste of one rank's tagged lines inside a Markdown fence is that rank's excerpt: the
    fence lines (no word in them) go with the lines around them, not to a node of their own."""
    run = MPI / "kill-worker-training-mpi_tag_output"
    tagged = [
        line
        for f in sorted(run.glob("*.out"))
        for line in f.read_text().splitlines()
        if line.startswith("[1,1]<") and " loss " in line  # its step lines: they name no task
    ][:40]
    assert len(tagged) >= 10
    paste = tmp_path / "paste.txt"
    paste.write_text("```\n" + "\n".join(tagged) + "\n```\n\n")
    loaded = analyzer.load(paste)
    assert [n.node for n in loaded.diagnosis.nodes if n.files] == ["worker:1"]
    assert loaded.ingest.lines_in_timeline + loaded.ingest.lines_rejected == len(tagged) + 3
