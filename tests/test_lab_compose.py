"""The mwms_compose style's writers (analyzer/lab/compose.py): dockerd's json-file lines, docker
compose logs --timestamps, docker logs, TF_CONFIG as a compose file gives it, and the files'
layout. No TensorFlow, no containers, no /etc/hosts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from analyzer.lab import compose

NS = 1_795_532_177_125_764_000  # 2026-11-24T14:56:17.125764Z
NODES = ["worker:0", "worker:1", "worker:2"]
TS = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z"


def test_a_json_file_line_is_log_stream_time_in_that_order_with_the_newline_kept():
    ((text, last),) = compose.messages(b"step 3/60 loss 1.0\n", partial=False)
    line = compose.json_line(NS, "stderr", text, last)
    assert line == (
        b'{"log":"step 3/60 loss 1.0\\n","stream":"stderr","time":"2026-11-24T14:56:17.125764Z"}\n'
    )
    assert json.loads(line) == {
        "log": "step 3/60 loss 1.0\n",
        "stream": "stderr",
        "time": "2026-11-24T14:56:17.125764Z",
    }
    # RFC3339Nano: a whole second has no fraction at all
    assert compose.json_line(NS - 125_764_000, "stdout", b"", True).endswith(
        b'"time":"2026-11-24T14:56:17Z"}\n'
    )


def test_json_escaping_is_mobys_not_pythons():
    raw = 'a "q" \\ <b> & \t\r é \u2028'.encode() + b"\xff"
    esc = compose.json_escape(raw)
    assert esc == 'a \\"q\\" \\\\ \\u003cb\\u003e \\u0026 \\u0009\\r é \\u2028\\ufffd'
    # still JSON, and it reads back as the line (the invalid byte as U+FFFD)
    assert json.loads(f'"{esc}"') == raw.decode("utf-8", errors="replace")


def test_long_and_unterminated_lines_are_partial_messages_without_the_newline():
    long = b"x" * (2 * compose.MAX_LINE + 5) + b"\n"
    msgs = compose.messages(long, partial=False)
    assert [(len(t), last) for t, last in msgs] == [
        (compose.MAX_LINE, False),
        (compose.MAX_LINE, False),
        (5, True),
    ]
    lines = [json.loads(compose.json_line(NS, "stderr", t, last)) for t, last in msgs]
    assert not lines[0]["log"].endswith("\n") and lines[-1]["log"] == "xxxxx\n"
    assert "".join(x["log"] for x in lines) == long.decode()
    # the stream ended mid-line: one partial message; none for no bytes
    assert compose.messages(b"Traceback (most rec", partial=True) == [
        (b"Traceback (most rec", False)
    ]
    assert compose.messages(b"", partial=True) == []


def test_tf_config_names_the_services_and_containers_are_named_as_compose_v2_does():
    cluster = {"worker": [compose.service(i, 2000 + i) for i in range(3)]}
    raw = compose.tf_config({"cluster": cluster, "task": {"type": "worker", "index": "1"}})
    assert json.loads(raw) == {
        "cluster": {"worker": ["trainer-0:2000", "trainer-1:2001", "trainer-2:2002"]},
        "task": {"type": "worker", "index": 1},
    }
    assert compose.container_name(2) == "mwms-trainer-2-1"
    assert compose.log_name(2) == "trainer-2-1"
    assert compose.compose_width(range(3)) == len("trainer-0-1") + 1
    assert compose.HOSTS_LINE == "127.0.0.1 trainer-0 trainer-1 trainer-2"


def _feed(d: compose.Dockerd) -> None:
    d.line("worker:0", b"TF_CONFIG={}\n", "stdout", False)
    d.line("worker:1", b"TF_CONFIG={}\n", "stdout", False)
    d.line("worker:0", b"2026 - INFO - step 1/60 loss 2.0 (0.1 s)\n", "stderr", False)
    d.line("worker:1", b"Traceback (most rec", "stderr", True)  # killed mid-line
    d.closed("worker:1")
    d.line("worker:0", b'UnavailableError: "trainer-1" gone\n', "stderr", False)
    d.closed("worker:0")


def _truth(evidence: dict) -> dict:
    return {
        "nodes": NODES,
        "node_files": {n: [compose.raw_name(n)] for n in NODES[:2]} | {"worker:2": []},
        "evidence": [evidence],
        "exit_codes": {"worker:0": 1, "worker:1": -9},
    }


def test_json_file_logs_are_laid_out_as_dockerd_does(tmp_path: Path):
    d = compose.Dockerd(tmp_path, "compose_json", 7, NODES)
    _feed(d)
    cid = d.cids["worker:0"]
    assert re.fullmatch(r"[0-9a-f]{64}", cid) and cid == compose.container_id(7, 0)
    assert d.files["worker:0"] == f"containers/{cid}/{cid}-json.log"
    assert d.hostname("worker:0") == cid[:12]
    rows = [json.loads(x) for x in (tmp_path / d.files["worker:0"]).read_text().splitlines()]
    assert [(r["stream"], r["log"][-1]) for r in rows] == [("stdout", "\n")] + [
        ("stderr", "\n")
    ] * 2
    (last,) = (tmp_path / d.files["worker:1"]).read_text().splitlines()[1:]
    assert json.loads(last)["log"] == "Traceback (most rec"  # partial: no newline
    (tmp_path / compose.RAW_DIR).mkdir()
    truth = _truth({"node": "worker:0", "line_no": 3, "text": 'UnavailableError: "trainer-1" gone'})
    d.finish(truth)
    assert not (tmp_path / compose.RAW_DIR).exists()
    (ev,) = truth["evidence"]
    assert (ev["file"], ev["line_no"]) == (d.files["worker:0"], 3)
    assert ev["text"].startswith('{"log":"UnavailableError: \\"trainer-1\\" gone\\n"')
    assert truth["node_files"]["worker:2"] == [] and truth["launcher_files"] == []
    assert truth["compose"]["containers"]["worker:1"]["docker_exit_code"] == 137


def test_compose_logs_prefixes_each_line_and_puts_the_daemons_time_after_it(tmp_path: Path):
    d = compose.Dockerd(tmp_path, "compose_logs", 7, NODES)
    _feed(d)
    assert set(d.files.values()) == {"compose.log"}
    lines = (tmp_path / "compose.log").read_text().split("\n")
    assert re.fullmatch(rf"trainer-0-1  \| {TS} TF_CONFIG=\{{\}}", lines[0])
    assert re.fullmatch(rf"trainer-1-1  \| {TS} TF_CONFIG=\{{\}}", lines[1])
    # the killed task's unfinished line is printed when its stream ends, on a line of its own
    assert re.fullmatch(rf"trainer-1-1  \| {TS} Traceback \(most rec", lines[3])
    assert re.fullmatch(rf'trainer-0-1  \| {TS} UnavailableError: "trainer-1" gone', lines[4])
    truth = _truth({"node": "worker:1", "line_no": 2, "text": "Traceback (most rec"})
    d.finish(truth)
    (ev,) = truth["evidence"]
    assert (ev["file"], ev["line_no"]) == ("compose.log", 4)
    assert truth["node_files"]["worker:0"] == ["compose.log"]


def test_a_long_line_reaches_compose_as_one_line_with_each_pieces_time(tmp_path: Path):
    d = compose.Dockerd(tmp_path, "compose_logs", 1, NODES)
    d.line("worker:2", b"y" * (compose.MAX_LINE + 3) + b"\n", "stderr", False)
    (line,) = (tmp_path / "compose.log").read_text().splitlines()
    head, tail = line.split("y" * compose.MAX_LINE)
    assert re.fullmatch(rf"trainer-2-1  \| {TS} ", head)
    assert re.fullmatch(rf"{TS} yyy", tail)


@pytest.mark.parametrize("seed", [1, 2])
def test_docker_logs_are_the_plain_lines_per_container(tmp_path: Path, seed: int):
    d = compose.Dockerd(tmp_path, "docker_logs", seed, NODES)
    _feed(d)
    d.line("worker:2", b"z" * (compose.MAX_LINE + 1) + b"\n", "stderr", False)
    assert d.files["worker:0"] == "mwms-trainer-0-1.log"
    assert (tmp_path / "mwms-trainer-1-1.log").read_bytes() == (
        b"TF_CONFIG={}\nTraceback (most rec"
    )
    assert (tmp_path / "mwms-trainer-2-1.log").read_bytes() == b"z" * (compose.MAX_LINE + 1) + b"\n"
