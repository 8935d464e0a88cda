"""Ingest: discovery, compression, bundles, node identity, time zones and accounting."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import re
import tarfile
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from conftest import sample_folders

import analyzer
from analyzer.ingest import ingest
from analyzer.sources import UsageError
from analyzer.timeline import read_parquet, to_pandas, write_parquet

PS_LOG = (
    'TF_CONFIG={"cluster": {"chief": ["127.0.0.1:57785"], "ps": ["127.0.0.1:37271"], '
    '"worker": ["127.0.0.1:58119", "127.0.0.1:49363"]}, "task": {"type": "ps", "index": 0}}\n'
    "I0000 00:00:1795322641.559889    3971 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:37271\n"
    "2026-11-22 04:44:01,560 - INFO - ps 0 server started at grpc://127.0.0.1:37271, waiting for the coordinator\n"
)
WORKER_LOG = (
    "I0000 00:00:1795322641.575652    3972 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:58119\n"
    "2026-11-22 04:44:03,627 - ERROR - failed\n"
    "Traceback (most recent call last):\n"
    '  File "x.py", line 1, in <module>\n'
    "tensorflow.python.framework.errors_impl.UnavailableError: Socket closed\n"
)


def assert_balanced(result):
    for f in result.files:
        assert f.lines_read == f.lines_in_timeline + f.lines_rejected, f
    assert result.lines_read == result.lines_in_timeline + result.lines_rejected


def test_nodes_from_contents_and_missing_tasks(write_log, tmp_path):
    write_log("a/server.log", PS_LOG)
    write_log("b/worker-0.log", WORKER_LOG)
    result = ingest([tmp_path])
    assert result.nodes["ps:0"].identity == "content"
    assert result.nodes["worker:0"].files == ["b/worker-0.log"]
    # chief:0 and worker:1 are in the cluster spec but left no log
    assert result.nodes["chief:0"].missing and result.nodes["worker:1"].missing
    assert_balanced(result)
    df = to_pandas(result.timeline)
    assert df["ts"].is_monotonic_increasing
    assert set(df["node"]) == {"ps:0", "worker:0"}


def test_contents_win_over_name_and_conflict_is_reported(write_log, tmp_path):
    write_log("worker-5.log", PS_LOG)
    result = ingest([tmp_path])
    assert "ps:0" in result.nodes and "worker:5" not in result.nodes
    assert any("worker:5" in p.problem and "ps:0" in p.problem for p in result.problems)


def test_compressed_files_and_rotation_order(tmp_path):
    (tmp_path / "worker-1.log.2.gz").write_bytes(
        gzip.compress(b"2026-11-22 04:00:00,000 - INFO - oldest\n")
    )
    (tmp_path / "worker-1.log.1").write_bytes(b"2026-11-22 04:00:01,000 - INFO - older\n")
    (tmp_path / "worker-1.log").write_bytes(b"2026-11-22 04:00:02,000 - INFO - newest\n")
    (tmp_path / "ps-0.log.bz2").write_bytes(bz2.compress(b"INFO:tensorflow:bz2\n"))
    (tmp_path / "ps-1.log.xz").write_bytes(lzma.compress(b"INFO:tensorflow:xz\n"))
    zstd = pytest.importorskip("zstandard")
    (tmp_path / "ps-2.log.zst").write_bytes(
        zstd.ZstdCompressor().compress(b"INFO:tensorflow:zstd\n")
    )
    result = ingest([tmp_path])
    assert result.nodes["worker:1"].files == ["worker-1.log.2.gz", "worker-1.log.1", "worker-1.log"]
    df = to_pandas(result.timeline)
    assert list(df[df["node"] == "worker:1"]["message"]) == ["oldest", "older", "newest"]
    for node, msg in (("ps:0", "bz2"), ("ps:1", "xz"), ("ps:2", "zstd")):
        assert list(df[df["node"] == node]["message"]) == [msg]


def test_rotated_pieces_without_times_of_their_own_stay_oldest_first(tmp_path):
    # (lines with no time carry the time of the last timed line before them, here the oldest
    # piece's: the pieces must still read in rotation order, not in file-name order)
    (tmp_path / "worker-1.log.2").write_bytes(
        b"2026-11-22 04:00:00,000 - INFO - start\nINFO:tensorflow:step 1\n"
    )
    (tmp_path / "worker-1.log.1").write_bytes(b"INFO:tensorflow:step 2\n")
    (tmp_path / "worker-1.log").write_bytes(b"INFO:tensorflow:step 3\nINFO:tensorflow:done\n")
    (tmp_path / "worker-0.log").write_bytes(b"2026-11-22 04:00:00,000 - INFO - other\n")
    df = to_pandas(ingest([tmp_path]).timeline)
    messages = list(df[df["node"] == "worker:1"]["message"])
    assert messages == ["start", "step 1", "step 2", "step 3", "done"]


def _tar_bytes(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_tar_and_zip_bundles_are_read_in_memory_without_escaping(tmp_path):
    (tmp_path / "job.tar.gz").write_bytes(
        _tar_bytes(
            {
                "logs/worker-0.log": WORKER_LOG.encode(),
                "../evil.log": b"x\n",
                "/etc/abs.log": b"y\n",
            }
        )
    )
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("ps-0.log", PS_LOG)
        zf.writestr("../../escape.log", "z\n")
    (tmp_path / "more.zip").write_bytes(buf.getvalue())
    result = ingest([tmp_path])
    assert "worker:0" in result.nodes and "ps:0" in result.nodes
    escapes = [p.file for p in result.problems if "escapes" in p.problem]
    assert len(escapes) == 3
    assert not (tmp_path.parent / "evil.log").exists()
    assert_balanced(result)


def test_decompression_cap_stops_a_bomb(tmp_path):
    (tmp_path / "worker-0.log.gz").write_bytes(gzip.compress(b"INFO:tensorflow:a\n" * 200_000))
    result = ingest([tmp_path], max_bytes=100_000)
    assert any("cap" in p.problem for p in result.problems)
    assert 0 < result.lines_read <= 100_000 // 18 + 1
    assert_balanced(result)


def test_truncated_gzip_keeps_what_it_held(tmp_path):
    data = gzip.compress(b"".join(b"INFO:tensorflow:line %d\n" % i for i in range(5000)))
    (tmp_path / "worker-0.log.gz").write_bytes(data[: len(data) // 2])
    result = ingest([tmp_path])
    assert any("truncated gzip" in p.problem for p in result.problems)
    assert result.lines_read > 100
    assert_balanced(result)


def test_binary_and_not_logs_are_skipped_with_reasons(write_log, tmp_path):
    write_log("core", b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 10)
    write_log("plot.png", b"\x89PNG\r\n\x1a\n")
    write_log("truth.json", "{}")
    write_log("random.bin.log", bytes(range(256)) * 40)
    write_log("empty.log", b"")
    write_log("worker-0.log", WORKER_LOG)
    result = ingest([tmp_path])
    skipped = {p.file: p.problem for p in result.skipped}
    assert "ELF" in skipped["core"]
    assert "plot.png" in skipped and "truth.json" in skipped
    assert "binary" in skipped["random.bin.log"]
    assert any(p.file == "empty.log" and "empty" in p.problem for p in result.problems)
    assert list(result.nodes) == ["worker:0"]


def test_missing_path_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="no such file"):
        ingest([tmp_path / "nope"])


def test_glob(write_log, tmp_path):
    write_log("worker-0.log", WORKER_LOG)
    write_log("ps-0.log", PS_LOG)
    result = ingest([str(tmp_path / "worker-*.log")])
    assert [f.file for f in result.files] == ["worker-0.log"]


def test_tz_per_node_shifts_only_that_node(write_log, tmp_path):
    write_log("worker-0.log", "2026-11-22 04:00:00,000 - INFO - a\n")
    write_log("worker-1.log", "2026-11-22 04:00:00,000 - INFO - b\n")
    result = ingest([tmp_path], node_tz={"worker:1": "Asia/Tokyo"})
    df = to_pandas(result.timeline).set_index("node")
    assert df.loc["worker:0", "ts"] == pd.Timestamp("2026-11-22 04:00:00", tz="UTC")
    assert df.loc["worker:1", "ts"] == pd.Timestamp("2026-11-21 19:00:00", tz="UTC")


def test_year_less_absl_takes_year_from_file(write_log, tmp_path):
    write_log(
        "worker-0.log",
        "2025-01-30 12:00:00,000 - INFO - dated\nE0130 12:00:01.000000  1 x.cc:1] boom\n",
    )
    result = ingest([tmp_path])
    df = to_pandas(result.timeline)
    row = df[df["message"] == "boom"].iloc[0]
    assert row["ts"] == pd.Timestamp("2025-01-30 12:00:01", tz="UTC")
    assert row["ts_origin"] == "year_inferred"
    assert "from the file's own dated lines" in result.files[0].notes["year"]


def test_parquet_round_trip(write_log, tmp_path):
    write_log("logs/worker-0.log", WORKER_LOG)
    write_log("logs/ps-0.log", PS_LOG)
    result = ingest([tmp_path / "logs"])
    write_parquet(result.timeline, tmp_path / "t.parquet")
    back = read_parquet(tmp_path / "t.parquet")
    pd.testing.assert_frame_equal(back, to_pandas(result.timeline))


@pytest.mark.parametrize("folder", sample_folders(), ids=lambda p: p.name)
def test_sample_logs_every_node_identified_and_nothing_lost(folder):
    result = ingest([folder])
    assert_balanced(result)
    assert result.lines_read > 0
    for node in result.nodes:
        assert ":" in node and node.split(":")[1].isdigit(), node


TFJOB = Path(__file__).resolve().parent / "corpus" / "lab" / "tfjob_k8s"


def test_kubectl_prefix_lines_are_parted_by_pod():
    """`kubectl logs -l ... --prefix --timestamps`: one file, every pod's lines behind
    "[pod/<pod>/<container>] "; each pod is its own node, named by the pod's name."""
    run = analyzer.load(TFJOB / "kill-ps-training-k8s_kubectl", condensed=True)
    lines = {n: info.lines for n, info in run.ingest.nodes.items()}
    assert set(lines) == {"chief:0", "ps:0", "worker:0", "worker:1"}
    assert all(count > 10 for count in lines.values())
    # the prefix and kubectl's time are gone from the messages; the time is the line's
    tl = run.timeline
    assert not tl["message"].astype(str).str.startswith("[pod/").any()
    assert tl.loc[tl["node"] == "ps:0", "ts"].notna().all()


COMPOSE = Path(__file__).resolve().parent / "corpus" / "lab" / "mwms_compose"


def test_compose_prefix_lines_are_parted_by_container():
    """`docker compose logs --timestamps`: one file, every container's lines behind
    compose's "%-<width>s | " prefix (cmd/formatter/logs.go); each container is its own node."""
    run = analyzer.load(COMPOSE / "healthy-none-full-compose_logs", condensed=True)
    lines = {n: info.lines for n, info in run.ingest.nodes.items()}
    assert set(lines) == {"worker:0", "worker:1", "worker:2"}
    assert all(count > 50 for count in lines.values())
    tl = run.timeline
    assert not tl["message"].astype(str).str.contains(r"^trainer-\d-1 +\| ").any()
    assert tl["ts"].notna().all()


def test_compose_prefix_in_color_is_read_as_without(tmp_path):
    # compose colors the prefix unless --no-color (colorFunc around "%-<width>s | "): the same
    # file with each prefix in the escape codes compose writes reads as the plain one
    src = COMPOSE / "healthy-none-full-compose_logs" / "compose.log"
    colored = re.sub(
        r"^(trainer-\d-1 +\| )",
        lambda m: f"\x1b[36m{m.group(1)}\x1b[0m",
        src.read_text(encoding="utf-8"),
        flags=re.M,
    )
    (tmp_path / "compose.log").write_text(colored, encoding="utf-8")
    plain = analyzer.load(src.parent, condensed=True)
    run = analyzer.load(tmp_path, condensed=True)
    assert {n: i.lines for n, i in run.ingest.nodes.items()} == {
        n: i.lines for n, i in plain.ingest.nodes.items()
    }


SYSTEMD = Path(__file__).resolve().parent / "corpus" / "lab" / "pss_systemd"


def test_a_merged_journal_is_parted_by_host_and_timed_by_its_lines():
    """`journalctl -m` of five hosts in one file: "Mon dd hh:mm:ss host ident[pid]: message"
    (systemd logs-show.c output_short). Each host is its own node (the task its TF_CONFIG
    names), every line takes the journal's time (year-less, as an absl time), and the prefix is
    gone from the messages."""
    run = analyzer.load(SYSTEMD / "healthy-none-full-journal_merged", condensed=True)
    assert set(run.ingest.nodes) == {"chief:0", "ps:0", "ps:1", "worker:0", "worker:1"}
    tl = run.timeline
    assert tl["ts"].notna().all()
    assert not tl["message"].astype(str).str.contains(r"^\w{3} +\d+ \d\d:\d\d:\d\d tfhost").any()
    assert (tl["ts"].dt.year == 2026).all()


def test_journal_short_iso_lines_take_their_zoned_time():
    run = analyzer.load(SYSTEMD / "kill-ps-training-journal_iso", condensed=True)
    assert run.timeline["ts"].notna().all()
    assert {"chief:0", "ps:0"} <= set(run.ingest.nodes)


def test_one_stream_whose_lines_claim_several_tasks_is_said(tmp_path):
    """The compose file without its prefixes (as ``docker compose logs --no-log-prefix`` prints
    it): nothing tells a line's container, so tfdiag reads it as one node and says that the
    file's lines claim three tasks; the real file, parted by container, says nothing of the
    kind, and neither does one under a prefix no rule knows ("name >> "), learned and parted."""
    src = COMPOSE / "healthy-none-full-compose_logs" / "compose.log"
    bare = re.sub(r"^trainer-\d-1 +\| ", "", src.read_text(encoding="utf-8"), flags=re.M)
    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "compose.log").write_text(bare, encoding="utf-8")
    said = [p.problem for p in analyzer.load(tmp_path / "bare", condensed=True).ingest.problems]
    assert any("claim 3 tasks" in m and "worker:0, worker:1, worker:2" in m for m in said)
    other = re.sub(r"^(trainer-\d-1) +\| ", r"\1 >> ", src.read_text(encoding="utf-8"), flags=re.M)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "compose.log").write_text(other, encoding="utf-8")
    run = analyzer.load(tmp_path / "other", condensed=True)
    assert {"worker:0", "worker:1", "worker:2"} <= set(run.ingest.nodes)
    assert not any("claim" in p.problem for p in run.ingest.problems)
    parted = analyzer.load(src.parent, condensed=True).ingest.problems
    assert not any("claim" in p.problem for p in parted)
