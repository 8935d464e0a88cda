"""``tfdiag ingest`` streamed to Parquet (``analyzer.ingest.ingest(output=...)``): the same
timeline and the same account as the in-memory ingest, written batch by batch from spilled
streams, whatever the batch size."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from analyzer.ingest import ingest
from analyzer.rules import load_rules
from analyzer.timeline import read_parquet, to_pandas

ROOT = Path(__file__).resolve().parent.parent
LAB = ROOT / "tests" / "corpus" / "lab"
RUNS = [
    ROOT / "sample_logs" / "ps_killed",
    ROOT / "sample_logs" / "clock_skew",
    LAB / "tf1" / "healthy_old-none-full-rotated",  # rotated pieces: times carried across
    LAB / "tf1" / "late-worker-startup-rotated",
    LAB / "mwms_ctl" / "kill-worker-startup-gz",
]
RULES = load_rules()


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    a, b = a.reset_index(drop=True), b.reset_index(drop=True)
    assert list(a.columns) == list(b.columns)
    pd.testing.assert_frame_equal(a, b, check_dtype=False)


@pytest.mark.parametrize("batch_rows", [40, 1_000_000])
@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.name)
def test_streamed_timeline_equals_the_in_memory_one(run, batch_rows, tmp_path):
    whole = ingest([run], rules=RULES)
    out = tmp_path / "t.parquet"
    streamed = ingest([run], output=out, rules=RULES, batch_rows=batch_rows)
    written = streamed.events_written
    assert written == whole.timeline.num_rows > 0
    assert streamed.timeline.num_rows == 0  # nothing held: the rows are in the file
    _same(read_parquet(out), to_pandas(whole.timeline))
    assert streamed.to_dict() == whole.to_dict()
    assert sorted(streamed.nodes) == sorted(whole.nodes)
    for name, info in whole.nodes.items():
        assert streamed.nodes[name].lines == info.lines
        assert streamed.nodes[name].files == info.files


def test_small_batches_are_each_in_time_order(tmp_path):
    out = tmp_path / "t.parquet"
    done = ingest([RUNS[0]], output=out, rules=RULES, batch_rows=40)
    written = done.events_written
    import pyarrow.parquet as pq

    table = pq.read_table(out)
    assert table.num_rows == written
    assert pq.ParquetFile(out).metadata.num_row_groups > 1  # one or more per batch


def test_a_folder_gets_one_partition_per_job(tmp_path):
    out = tmp_path / "dataset"
    out.mkdir()
    whole = ingest([RUNS[0]], rules=RULES)
    done = ingest([RUNS[0]], output=out, rules=RULES, batch_rows=40)
    written = done.events_written
    assert written == whole.timeline.num_rows
    assert {p.name for p in out.iterdir()} >= {"job=ps", "job=worker"}
    back = read_parquet(out)
    assert len(back) == written
    _same(back, to_pandas(whole.timeline))


def test_unreadable_and_multi_rank_files_are_accounted(tmp_path):
    logs = tmp_path / "logs"
    shutil.copytree(RUNS[0], logs)
    (logs / "broken.log.gz").write_bytes(b"\x1f\x8b\x08\x00 not really gzip")
    (logs / "mpi.log").write_text(
        "".join(f"[1,{r}]<stderr>:step {i} loss 0.5\n" for i in range(30) for r in (0, 1)),
        encoding="utf-8",
    )
    whole = ingest([logs], rules=RULES)
    streamed = ingest([logs], output=tmp_path / "t.parquet", rules=RULES, batch_rows=7)
    written = streamed.events_written
    assert written == whole.timeline.num_rows
    assert streamed.to_dict() == whole.to_dict()
    assert any("broken.log.gz" in p.file for p in streamed.problems)
    _same(read_parquet(tmp_path / "t.parquet"), to_pandas(whole.timeline))
