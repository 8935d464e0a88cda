"""Comparison with a good run (analyzer/compare.py, ``tfdiag diff``, ``analyze --baseline``)."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
from conftest import SAMPLE_LOGS

from analyzer.cli import main
from analyzer.compare import compare, templates
from analyzer.run import load

GOOD = SAMPLE_LOGS / "healthy"
FAILED = SAMPLE_LOGS / "ps_killed"  # the same job (chief, ps, 2 workers) whose ps was killed


def _template(text: str) -> str:
    return templates(pa.array([text], pa.large_string()))[0].as_py()


def test_templates_mask_what_changes_between_runs():
    # real lines of the sample runs
    a = _template("2026-11-22 05:14:58,888 - INFO - step 2 loss 58.6609")
    b = _template("2026-11-22 05:15:02,262 - INFO - step 60 loss 0.0172")
    assert a == b
    assert "58" not in a and "step" in a
    addr = _template("Started server with target: grpc://127.0.0.1:51467")
    assert addr == "Started server with target: <url>"
    remote = _template(
        "Additional GRPC error information from remote target /job:ps/replica:0/task:0/"
        "device:CPU:0 while calling /tensorflow.eager.EagerService/RunComponentFunction:"
    )
    assert "/job:ps/replica:<n>/task:<n>" in remote
    assert "RunComponentFunction" not in remote  # a path
    hexed = _template("Local rendezvous recv item cancelled. Key hash: 0x9f3a77c1e2b4d5a6")
    assert hexed.endswith("Key hash: <hex>")
    ports = _template("failed to connect to all addresses; last error: ipv4:127.0.0.1:50211")
    assert ports.endswith("ipv4:<addr>")


def test_templates_keep_nulls_and_odd_text():
    out = templates(pa.array([None, "", "\x1b[1m 1/20\x1b[0m \x08\x08"], pa.large_string()))
    assert out[0].as_py() is None
    assert out[1].as_py() == ""
    assert "\x1b" not in out[2].as_py() and "\x08" not in out[2].as_py()


@pytest.fixture(scope="module")
def runs():
    return load(GOOD, condensed=True), load(FAILED, condensed=True)


def test_compare_names_what_the_failed_run_did_differently(runs):
    good, failed = runs
    c = compare(good, failed)
    assert c.node_count == (4, 4)
    # the failed run stopped at step 20 of 60: the chief never finished training
    assert c.last_step == (60, 20)
    assert any(d.startswith("Last step: 20 in the failed run, 60") for d in c.differences)
    assert any("chief:0 (training vs finished)" in d for d in c.differences)
    chief = c.node("chief:0")
    assert chief.new_count > 0
    assert any("Remote function on worker" in t["template"] for t in chief.new)
    assert "training finished after <n> steps" in chief.missing
    assert "chief:0" in c.diverging
    # the victims' new lines come after the ps went silent
    assert c.first_new in {"chief:0", "worker:0", "worker:1"}
    data = json.loads(json.dumps(c.to_dict()))
    assert data["last_step"] == {"baseline": 60, "failed": 20}
    assert {n["node"] for n in data["nodes"]} == {"chief:0", "ps:0", "worker:0", "worker:1"}


def test_a_run_compared_with_itself_has_nothing_new(runs):
    good, _ = runs
    c = compare(good, good)
    assert c.differences == []
    assert c.diverging == []
    assert all(n.new_count == 0 and n.missing_count == 0 for n in c.nodes)


def test_different_jobs_show_node_count_and_spec(runs):
    good, _ = runs
    other = load(SAMPLE_LOGS / "worker_killed", condensed=True)  # 3 workers, no ps or chief
    c = compare(good, other)
    assert c.node_count == (4, 3)
    text = " ".join(c.differences)
    assert "Node count: 3 in the failed run, 4 in the baseline" in text
    assert "Cluster spec:" in text
    assert "worker:2" in {n.node for n in c.nodes if n.presence == "failed only"}


def test_run_api_and_reports_carry_the_comparison():
    run = load(FAILED, baseline=GOOD, condensed=True)
    assert run.comparison is not None
    assert run.comparison.last_step == (60, 20)
    data = run.to_dict()
    assert data["baseline"]["last_step"] == {"baseline": 60, "failed": 20}
    assert "progress" in data and data["progress"]["nodes"][0]["node"] == "chief:0"
    html = run.to_html()
    assert 'id="baseline"' in html and "Remote function on worker" in html
    assert load(FAILED, condensed=True).to_dict().get("baseline") is None


def test_cli_diff_json_and_exit_codes(capsys):
    assert main(["diff", str(GOOD), str(FAILED), "--json", "-"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["failed"] == str(FAILED) and data["diverging_nodes"]
    assert main(["diff", str(GOOD), str(GOOD), "--no-color"]) == 0
    out = capsys.readouterr().out
    assert "no difference found" in out


def test_cli_analyze_with_baseline(capsys):
    code = main(["analyze", str(FAILED), "--baseline", str(GOOD), "--json", "-"])
    assert code == 1
    data = json.loads(capsys.readouterr().out)
    assert data["root_cause"]["node"] == "ps:0"  # the baseline does not change a clear verdict
    assert data["baseline"]["diverging_nodes"]
    main(["analyze", str(FAILED), "--baseline", str(GOOD), "--no-color"])
    out = capsys.readouterr().out
    assert "Compared with the baseline" in out and "Progress" in out


def test_cli_bad_baseline_path_is_a_usage_error(capsys, tmp_path):
    assert main(["analyze", str(FAILED), "--baseline", str(tmp_path / "nope")]) == 2
    assert main(["diff", str(tmp_path / "nope"), str(FAILED)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and "nope" in err
