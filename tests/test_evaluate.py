"""``tfdiag evaluate``: finding labelled folders, scoring verdicts, the exit code."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from analyzer.evaluate import evaluate, find_cases, main
from tests.conftest import sample_folders

FOLDERS = sample_folders()

HEALTHY_LOG = """\
TF_CONFIG={"cluster": {"worker": ["127.0.0.1:5000"]}, "task": {"type": "worker", "index": 0}}
2026-11-22 04:10:00,000 - INFO - step 1 loss 0.5
2026-11-22 04:10:01,000 - INFO - training finished after 1 steps
"""


def _healthy_case(root: Path, name: str, truth_node: str | None = None) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "worker-0.log").write_text(HEALTHY_LOG)
    truth = {
        "scenario": name,
        "nodes": ["worker:0"],
        "first_failing_node": truth_node,
        "root_cause_category": "none" if truth_node is None else "node_crash",
    }
    (folder / "truth.json").write_text(json.dumps(truth))
    return folder


def test_find_cases_takes_folders_and_parents(tmp_path: Path) -> None:
    a = _healthy_case(tmp_path / "set", "a")
    b = _healthy_case(tmp_path / "set", "b")
    (tmp_path / "set" / "no_truth").mkdir()
    assert find_cases([str(tmp_path / "set")]) == [a, b]
    assert find_cases([str(a), str(a)]) == [a]


def test_right_and_wrong_verdicts(tmp_path: Path, capsys) -> None:
    _healthy_case(tmp_path, "healthy")
    _healthy_case(tmp_path, "mislabelled", truth_node="worker:0")
    rows = {r["scenario"]: r for r in evaluate([str(tmp_path)])}
    assert rows["healthy"]["right"] and rows["healthy"]["category"] == "none"
    assert not rows["mislabelled"]["right"]
    assert main([str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "healthy" in out and "accuracy: 1/2" in out
    assert main([str(tmp_path / "healthy")]) == 0


def test_no_cases_is_an_error(tmp_path: Path) -> None:
    assert main([str(tmp_path)]) == 1


@pytest.mark.skipif(not FOLDERS, reason="no sample_logs/*/truth.json yet")
def test_every_sample_is_diagnosed_right(tmp_path: Path) -> None:
    rows = evaluate([str(f) for f in FOLDERS])
    wrong = [r for r in rows if not r["right"]]
    assert not wrong, [(r["scenario"], r["node"], r["category"]) for r in wrong]


@pytest.mark.skipif(not FOLDERS, reason="no sample_logs/*/truth.json yet")
def test_truth_json_is_not_read_as_a_log(tmp_path: Path) -> None:
    folder = shutil.copytree(FOLDERS[0], tmp_path / FOLDERS[0].name)
    row = evaluate([str(folder)])[0]
    assert "error" not in row
