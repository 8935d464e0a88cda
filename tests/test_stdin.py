"""``tfdiag analyze -``: a log pasted or piped on standard input (``kubectl logs pod | tfdiag analyze -``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT

from analyzer.sources import stdin_name

LINES = (
    "INFO:tensorflow:TF_CONFIG environment variable: {'task': {'type': 'worker', 'index': 1}}\n"
    "2019-01-01 10:00:00.000000: E tensorflow/core/distributed_runtime/master.cc:269] "
    "CreateSession failed because worker /job:ps/replica:0/task:0 returned error: "
    "Unavailable: OS Error\n"
)


def tfdiag(*args: str, stdin: bytes) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "analyzer", *args],
        input=stdin,
        capture_output=True,
        timeout=300,
        env=env,
    )


def test_a_pipe_is_analyzed_like_a_file():
    out = tfdiag("analyze", "-", "--json", "-", stdin=LINES.encode())
    assert out.returncode == 1, out.stderr
    report = json.loads(out.stdout)
    rc = report["root_cause"]
    assert rc["category"] == "connection_unavailable"
    # one node's lines: the verdict points at the task they name, not at a first failing node
    assert rc["node"] == "ps:0"
    assert "whose log is not here" in rc["summary"]
    assert "<stdin>" in out.stdout.decode()


def test_node_option_names_standard_input():
    out = tfdiag("analyze", "-", "--node", "worker:1", "--no-color", stdin=LINES.encode())
    assert out.returncode == 1, out.stderr
    assert "worker:1 (/job:worker/replica:0/task:1)" in " ".join(out.stdout.decode().split())


def test_a_paste_with_crlf_and_markdown_fences():
    paste = "```\r\n" + LINES.replace("\n", "\r\n") + "```\r\n"
    out = tfdiag("analyze", "-", "--json", "-", stdin=paste.encode())
    assert out.returncode == 1, out.stderr
    assert json.loads(out.stdout)["root_cause"]["category"] == "connection_unavailable"


def test_a_harmless_paste_exits_0():
    paste = (
        "2023-01-01 10:00:00.000000: I tensorflow/core/platform/cpu_feature_guard.cc:193] This "
        "TensorFlow binary is optimized with oneAPI Deep Neural Network Library (oneDNN) to use "
        "the following CPU instructions in performance-critical operations:  AVX2 FMA\n"
    )
    out = tfdiag("analyze", "-", "-q", stdin=paste.encode())
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("paste", [b"", b"\n \r\n\t\n"])
def test_empty_standard_input_is_one_line_and_exit_2(paste):
    out = tfdiag("analyze", "-", stdin=paste)
    assert out.returncode == 2
    err = out.stderr.decode().strip()
    assert err.startswith("tfdiag: standard input is empty")
    assert len(err.splitlines()) == 1
    assert out.stdout == b""


def test_node_without_standard_input_is_a_usage_error(tmp_path):
    (tmp_path / "w.log").write_text(LINES)
    out = tfdiag("analyze", str(tmp_path), "--node", "worker:1", stdin=b"")
    assert out.returncode == 2
    assert "use it with 'tfdiag analyze -'" in out.stderr.decode()


@pytest.mark.parametrize(
    ("given", "name"),
    [
        (None, "<stdin>"),
        ("worker:1", "worker-1"),
        ("worker-1", "worker-1"),
        ("/job:ps/replica:0/task:0", "ps-0"),
        ("chief", "chief"),
        ("evaluator", "evaluator"),
    ],
)
def test_stdin_name(given, name):
    assert stdin_name(given) == name
