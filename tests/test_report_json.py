"""The JSON report: exactly the contract object (shared/contract.md), valid for any input bytes."""

from __future__ import annotations

import json
import math
import re

import pytest
from conftest import sample_folders
from report_samples import SECRETS, write_hostile_logs

import analyzer
from analyzer.cli import main
from analyzer.model import STATUSES
from analyzer.report.jsonout import FINDING_FIELDS, build, clean
from analyzer.rules import CATEGORIES

FOLDERS = sample_folders()
TOP = {"schema_version", "tool_version", "root_cause", "nodes", "findings", "ingest"}
ROOT_CAUSE = {"node", "task", "category", "confidence", "time", "summary", "evidence"}
EVIDENCE = {"node", "time", "file", "line_no", "text", "why"}
NODE = {"node", "task", "files", "lines", "first_error_time", "last_time", "status"}
INGEST = {"files", "lines_read", "lines_in_timeline", "lines_rejected", "problems"}
TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z$")


def check_time(value, *, nullable=True):
    if value is None:
        assert nullable
    else:
        assert isinstance(value, str) and TIME.match(value), value


def validate(doc: dict) -> None:
    """Every field the contract names, with its type and vocabulary."""
    assert set(doc) >= TOP
    assert doc["schema_version"] == 1
    assert doc["tool_version"] == analyzer.__version__
    rc = doc["root_cause"]
    if rc is not None:
        assert set(rc) >= ROOT_CAUSE
        assert rc["category"] in CATEGORIES
        assert isinstance(rc["confidence"], float | int) and 0 <= rc["confidence"] <= 1
        assert isinstance(rc["summary"], str) and rc["summary"]
        check_time(rc["time"])
        if rc["category"] == "none":
            assert rc["node"] is None
        for e in rc["evidence"]:
            assert set(e) >= EVIDENCE
            check_time(e["time"])
            assert e["line_no"] is None or isinstance(e["line_no"], int)
    assert isinstance(doc["nodes"], list)
    for n in doc["nodes"]:
        assert set(n) >= NODE
        assert n["status"] in STATUSES
        assert isinstance(n["files"], list) and isinstance(n["lines"], int)
        check_time(n["first_error_time"])
        check_time(n["last_time"])
    for f in doc["findings"]:
        assert set(FINDING_FIELDS) <= set(f)
        assert f["category"] in CATEGORIES and f["category"] != "none"
        assert f["severity"] in ("info", "warning", "error", "fatal")
        assert isinstance(f["line_no"], int) and f["line_no"] >= 1
        assert isinstance(f["pattern_id"], str) and f["pattern_id"]
        check_time(f["time"])
    ing = doc["ingest"]
    assert set(ing) >= INGEST
    assert ing["lines_read"] == ing["lines_in_timeline"] + ing["lines_rejected"]
    for p in ing["problems"]:
        assert set(p) >= {"file", "problem"}
    # Valid JSON, strict: no NaN, encodable as UTF-8.
    text = json.dumps(doc, allow_nan=False, ensure_ascii=False)
    text.encode("utf-8")
    assert json.loads(text) == doc


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory):
    return analyzer.load(write_hostile_logs(tmp_path_factory.mktemp("hostile")))


def test_contract_fields(hostile_run):
    doc = build(hostile_run)
    validate(doc)
    assert doc["root_cause"]["node"] == "ps:0"
    assert doc["root_cause"]["category"] == "node_crash"
    assert doc["root_cause"]["remediation"]
    assert {n["node"] for n in doc["nodes"]} >= {"chief:0", "ps:0", "worker:0", "worker:1"}
    assert any(p["file"] == "worker-1.old.log.gz" for p in doc["ingest"]["problems"])


def test_findings_are_the_non_benign_ones(hostile_run):
    doc = build(hostile_run)
    found = hostile_run.findings
    expected = found[~found["benign"].astype(bool)]
    assert len(doc["findings"]) == len(expected)
    first = doc["findings"][0]
    row = expected.iloc[0]
    assert (first["node"], first["pattern_id"], first["line_no"]) == (
        row["node"],
        row["pattern_id"],
        int(row["line_no"]),
    )
    times = [f["time"] for f in doc["findings"] if f["time"]]
    assert times == sorted(times)


def test_redacted_unless_asked(hostile_run):
    text = json.dumps(build(hostile_run))
    for secret in SECRETS.values():
        assert secret not in text
    assert "[REDACTED]" in text
    raw = json.dumps(build(hostile_run, redact=False))
    for secret in SECRETS.values():
        assert secret in raw


def test_any_bytes_give_valid_json(tmp_path):
    junk = bytes(range(256)) * 4
    (tmp_path / "worker-0.log").write_bytes(
        b"2026-11-22 04:10:11.000000: E tensorflow/core/x.cc:1] Socket closed \xff\xfe\xed"
        + b" \xed\xa0\x80 lone surrogate bytes \x00 nul \x1b[31m ansi\n"
        + b"tensorflow.python.framework.errors_impl.UnavailableError: Socket closed \xc3\x28\n"
        + junk.replace(b"\n", b" ")
        + b"\n"
    )
    (tmp_path / "worker-1.log").write_text(
        "2026-11-22 04:10:10.000000: I tensorflow/core/x.cc:1] hello \U0001f600 \u2028 \u0085\n",
        encoding="utf-8",
    )
    run = analyzer.load(tmp_path)
    doc = run.to_dict()
    validate(doc)
    text = run.to_json(tmp_path / "out.json")
    assert json.loads((tmp_path / "out.json").read_text(encoding="utf-8")) == json.loads(text)


def test_clean_makes_anything_json_safe():
    import numpy as np
    import pandas as pd

    value = {
        "nan": float("nan"),
        "inf": math.inf,
        "np": np.int64(3),
        "npf": np.float32(1.5),
        "b": np.bool_(True),
        "ts": pd.Timestamp("2026-11-22 04:10:11", tz="UTC"),
        "nat": pd.NaT,
        "na": pd.NA,
        "sur": "a\ud800b",
        "tuple": (1, 2),
        "set": {1},
        1: "int key",
    }
    out = clean(value)
    assert json.loads(json.dumps(out, allow_nan=False)) == {
        "nan": None,
        "inf": None,
        "np": 3,
        "npf": 1.5,
        "b": True,
        "ts": "2026-11-22T04:10:11.000000Z",
        "nat": None,
        "na": None,
        "sur": "a\ufffdb",
        "tuple": [1, 2],
        "set": [1],
        "1": "int key",
    }


def test_cli_json_to_stdout(hostile_run, tmp_path, capsys):
    folder = write_hostile_logs(tmp_path / "logs")
    code = main(["analyze", str(folder), "--json", "-"])
    out = capsys.readouterr().out
    assert code == 1  # a failure was found
    doc = json.loads(out)
    validate(doc)
    for secret in SECRETS.values():
        assert secret not in out
    code = main(["analyze", str(folder), "--json", "-", "--no-redact"])
    out = capsys.readouterr().out
    for secret in SECRETS.values():
        assert secret in out


def test_cli_json_file(tmp_path, capsys):
    folder = write_hostile_logs(tmp_path / "logs")
    main(["analyze", str(folder), "--json", str(tmp_path / "r.json"), "-q"])
    assert capsys.readouterr().out == ""
    validate(json.loads((tmp_path / "r.json").read_text(encoding="utf-8")))


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_every_sample_folder(folder):
    run = analyzer.load(folder)
    doc = build(run)
    validate(doc)
    truth = json.loads((folder / "truth.json").read_text())
    assert {n["node"] for n in doc["nodes"]} >= set(truth.get("nodes", []))
