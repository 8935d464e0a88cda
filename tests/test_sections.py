"""Files of sections (analyzer/formats/sections.py): dshbak's per-host sections on real pdsh
runs (tests/corpus/lab/mwms_pdsh, ``pdsh ... | dshbak -c``), and ``tail``'s ``==> file <==``
headers made by the real ``tail`` over a real run's per-host logs."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import analyzer
from analyzer.formats import parse_lines

PDSH = Path(__file__).resolve().parent / "corpus" / "lab" / "mwms_pdsh"
EXCERPTS = Path(__file__).resolve().parent / "corpus" / "excerpts"


def test_each_dshbak_section_is_a_node_of_its_own():
    run = analyzer.load(PDSH / "healthy-none-full-pdsh_dshbak", condensed=True)
    tasks = {n for n in run.ingest.nodes if ":" in n}
    assert tasks == {"worker:0", "worker:1", "worker:2"}
    assert run.root_cause.category == "none"


def test_a_host_killed_under_dshbak_is_the_one_blamed():
    run = analyzer.load(PDSH / "kill-worker-training-pdsh_dshbak", condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("worker:1", "node_crash")


def test_header_lines_are_counted_and_no_event_runs_past_its_section():
    data = (PDSH / "kill-worker-training-pdsh_dshbak" / "pdsh.log").read_bytes()
    lines = data.decode().splitlines()
    headers = [i + 1 for i, x in enumerate(lines) if x == "-" * 16]  # 1-based rows of rulers
    parsed = parse_lines(data)
    assert parsed.rejected["section header"] == len(headers) * 3 // 2
    assert parsed.lines_in_timeline + sum(parsed.rejected.values()) == parsed.lines_read
    table = parsed.table.to_pandas()
    assert set(table["rank"]) == {"worker0", "worker1", "worker2", "pdsh@vm"}
    starts = sorted(headers[0::2])
    for first, last in zip(table["line_no"], table["line_end"], strict=True):
        # an event ends before the next section's header starts
        nxt = [s for s in starts if s > first]
        assert not nxt or last < nxt[0]
    # the first line of each section is its source's, not the previous one's
    for start in starts:
        row = table[table["line_no"] > start + 2].iloc[0]
        assert row["rank"] == lines[start]  # the host between the rulers


@pytest.mark.skipif(shutil.which("tail") is None, reason="needs tail")
def test_tail_of_several_logs_is_parted_by_its_headers(tmp_path: Path):
    logs = PDSH / "kill-chief-training-pdsh_tee" / "logs"
    files = sorted(str(p) for p in logs.glob("*.log"))
    out = subprocess.run(["tail", "-n", "+1", *files], capture_output=True, check=True).stdout
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "pasted.txt").write_bytes(out)
    run = analyzer.load(tmp_path / "run", condensed=True)
    alone = analyzer.load(logs, condensed=True)
    assert {n for n in run.ingest.nodes if ":" in n} == {n for n in alone.ingest.nodes if ":" in n}
    assert (run.root_cause.node, run.root_cause.category) == (
        alone.root_cause.node,
        alone.root_cause.category,
    )


def test_a_ruler_that_heads_no_section_leaves_the_file_whole():
    """A paste that starts with a ruler line above text (IPython's traceback banner, an LSF
    report's separator) is no file of sections."""
    for name in (
        "fenwicks-issue-4-colab-gcs-403.txt",
        "horovod-issue-1421-mpirun-process-exit-code-1.txt",
    ):
        parsed = parse_lines((EXCERPTS / name).read_bytes())
        assert "section header" not in parsed.rejected
        assert parsed.table["rank"].null_count == parsed.table.num_rows


def test_a_tools_warnings_before_the_first_header_stay_in_the_timeline():
    """dshbak's own Perl warnings went to the same file before its first section."""
    run_dir = PDSH / "wrong_address-worker-startup-pdsh_dshbak"
    data = (run_dir / "pdsh.log").read_bytes()
    assert data.startswith(b"Use of uninitialized value")
    parsed = parse_lines(data)
    table = parsed.table.to_pandas()
    before = table[table["line_no"] < 4]
    assert len(before) == 3 and before["rank"].isna().all()
    run = analyzer.load(run_dir, condensed=True)
    assert {n for n in run.ingest.nodes if n.startswith("worker:")} == {
        "worker:0",
        "worker:1",
        "worker:2",
    }


def test_one_section_alone_is_the_files_one_source():
    """A file with a single section is one source: its name is the file's, not the header's."""
    lines = (PDSH / "kill-worker-training-pdsh_dshbak" / "pdsh.log").read_text().splitlines()
    second = lines.index("-" * 16, 3)  # the ruler that opens the second section
    parsed = parse_lines("\n".join(lines[:second]).encode() + b"\n")
    assert parsed.rejected["section header"] == 3
    assert parsed.table["rank"].null_count == parsed.table.num_rows


def test_a_small_file_of_sections_is_parted_among_other_small_files():
    """Small files are parsed together in one pass; a file of sections still goes alone."""
    from analyzer.formats.many import parse_many

    dshbak = (PDSH / "kill-worker-training-pdsh_dshbak" / "pdsh.log").read_bytes()
    other = (PDSH / "kill-chief-training-pdsh_tee" / "logs" / "worker2.log").read_bytes()
    assert len(dshbak) < 64 * 1024 and len(other) < 64 * 1024
    parsed, alone = parse_many([dshbak, other])
    assert set(parsed.table["rank"].drop_null().to_pylist()) >= {"worker0", "worker1"}
    assert "section header" in parsed.rejected
    assert alone.table.num_rows == parse_lines(other).table.num_rows
