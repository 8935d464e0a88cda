"""The tfdiag command: usage errors, ingest to Parquet, and analyze on real logs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT, sample_folders

from analyzer.cli import main
from analyzer.timeline import read_parquet


def tfdiag(*args: str, cwd=None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # importable from any directory, installed or not
    return subprocess.run(
        [sys.executable, "-m", "analyzer", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
        env=env,
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["analyze"], "Missing argument"),
        (["analyze", "/no/such/folder"], "no such file or directory: /no/such/folder"),
        (["analyze", ".", "--bogus"], "No such option: --bogus"),
        (["analyze", ".", "--tz", "Mars/Olympus"], "unknown time zone"),
        (["frobnicate"], "No such command"),
        (["lab"], "SCENARIO"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(args, says):
    proc = tfdiag(*args)
    assert proc.returncode == 2
    assert says in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "Traceback" not in proc.stderr


def test_version_and_help(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("tfdiag 0.")
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for command in ("analyze", "ingest", "lab", "evaluate", "patterns"):
        assert command in out


def test_help_does_not_import_heavy_modules():
    code = (
        "import sys; from analyzer.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('pandas', 'pyarrow', 'matplotlib', 'tensorflow') if m in sys.modules]\n"
        "print('HEAVY=' + ','.join(heavy))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip().splitlines()[-1] == "HEAVY=", proc.stdout


def test_ingest_writes_parquet(tmp_path, write_log):
    write_log("logs/worker-0.log", "2026-11-22 04:00:00,000 - INFO - hello\n\nINFO:tensorflow:x\n")
    out = tmp_path / "t.parquet"
    proc = tfdiag("ingest", str(tmp_path / "logs"), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "3 lines read = 2 in the timeline + 1 rejected" in proc.stdout
    df = read_parquet(out)
    assert list(df["message"]) == ["hello", "x"]


@pytest.mark.parametrize("folder", sample_folders()[:3], ids=lambda p: p.name)
def test_analyze_sample_json_has_nodes_and_ingest(folder, tmp_path):
    out = tmp_path / "report.json"
    proc = tfdiag("analyze", str(folder), "--json", str(out), "--no-color", cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(out.read_text())
    truth = json.loads((folder / "truth.json").read_text())
    assert report["schema_version"] == 1
    assert {n["node"] for n in report["nodes"]} >= set(truth["nodes"]) - set(
        truth.get("missing_nodes", [])
    )
    ingest = report["ingest"]
    assert ingest["lines_read"] == ingest["lines_in_timeline"] + ingest["lines_rejected"]
    assert (proc.returncode == 0) == (truth["root_cause_category"] == "none")


def test_sample_logs_folder_exists():
    assert (ROOT / "sample_logs").is_dir()
