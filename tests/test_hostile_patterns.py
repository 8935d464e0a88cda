"""Patterns as an attack surface: a user's ``--patterns DIR`` must not hang, crash or run code.

* a rule that backtracks catastrophically is stopped by the regex timeout, reported with its
  id, disabled, and the run completes;
* a malformed pattern file is one clear line on stderr naming the file, exit code 2;
* nothing in a pattern file is executed (YAML tags) or expanded without bound (alias bombs).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT

import analyzer

BACKTRACK = """\
rules:
  - id: hostile.backtrack
    title: A rule that backtracks catastrophically
    category: node_crash
    severity: error
    match: '(a+)+$'
    keywords: [aaaa]
"""

EVIL_LINE = "a" * 50_000 + "!"


def tfdiag(*args: str, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "10000"}
    return subprocess.run(
        [sys.executable, "-m", "analyzer", *args],
        capture_output=True,
        text=True,
        errors="replace",
        cwd=cwd,
        env=env,
        timeout=timeout,
    )


@pytest.fixture
def logs(tmp_path) -> Path:
    d = tmp_path / "logs"
    d.mkdir()
    rows = [
        "2026-11-22 04:44:01.000000: I tensorflow/core/x.cc:1] starting",
        *[EVIL_LINE] * 20,
        "2026-11-22 04:44:02.000000: E tensorflow/core/x.cc:1] after the evil lines",
    ]
    (d / "worker-0.log").write_text("\n".join(rows) + "\n")
    return d


@pytest.fixture
def backtracking_rules(tmp_path) -> Path:
    d = tmp_path / "patterns"
    d.mkdir()
    (d / "evil.yaml").write_text(BACKTRACK)
    return d


def test_catastrophic_backtracking_is_stopped_and_reported_by_the_cli(
    logs, backtracking_rules, tmp_path
):
    out = tmp_path / "r.json"
    start = time.monotonic()
    proc = tfdiag(
        "analyze", str(logs), "--patterns", str(backtracking_rules), "--json", str(out),
        cwd=tmp_path,
    )  # fmt: skip
    elapsed = time.monotonic() - start
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    # twenty evil lines, one timeout: the rule is disabled after the first
    assert elapsed < 120, f"{elapsed:.0f} s"
    report = json.loads(out.read_text())
    ing = report["ingest"]
    said = [*report["warnings"], *(f"{p['file']}: {p['problem']}" for p in ing["problems"])]
    timeouts = [w for w in said if "hostile.backtrack" in w and "timed out" in w]
    assert timeouts, said
    assert ing["lines_read"] == ing["lines_in_timeline"] + ing["lines_rejected"]


def test_catastrophic_backtracking_through_the_api(logs, backtracking_rules):
    start = time.monotonic()
    run = analyzer.load(logs, patterns=[backtracking_rules])
    findings = run.findings
    assert time.monotonic() - start < 60
    said = [*run.problems, *(p.problem for p in run.ingest.problems)]
    timeouts = [p for p in said if "hostile.backtrack" in p]
    assert len(timeouts) == 1 and "timed out" in timeouts[0], said
    assert "hostile.backtrack" not in set(findings["pattern_id"])
    # the evil lines are events of the timeline all the same
    assert (run.timeline["message"] == EVIL_LINE).sum() == 20
    assert run.root_cause is not None  # the diagnosis completes


def test_overriding_a_bundled_rule_with_a_backtracking_one(logs, tmp_path):
    from analyzer.rules import load_rules

    bundled = next(iter(load_rules()))
    d = tmp_path / "override"
    d.mkdir()
    (d / "override.yaml").write_text(BACKTRACK.replace("hostile.backtrack", bundled.id))
    run = analyzer.load(logs, patterns=[d])
    run.findings  # noqa: B018
    said = [*run.problems, *(p.problem for p in run.ingest.problems)]
    assert any(bundled.id in p and "timed out" in p for p in said), said


def test_backtracking_in_many_files_still_completes(backtracking_rules, tmp_path):
    logs = tmp_path / "many"
    logs.mkdir()
    for i in range(8):
        (logs / f"worker-{i}.log").write_text(f"{EVIL_LINE}\n" * 5)
    out = tmp_path / "r.json"
    start = time.monotonic()
    proc = tfdiag(
        "analyze", str(logs), "--patterns", str(backtracking_rules), "--json", str(out),
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert time.monotonic() - start < 180
    report = json.loads(out.read_text())
    said = [*report["warnings"], *(p["problem"] for p in report["ingest"]["problems"])]
    assert any("hostile.backtrack" in w and "timed out" in w for w in said), said


MARKER = "tfdiag-pattern-pwned"

MALFORMED: dict[str, str | bytes] = {
    "unclosed.yaml": "rules:\n  - id: [unclosed\n    title: x\n",
    "tabs.yaml": "rules:\n\t- id: x.y\n",
    "bad_regex.yaml": BACKTRACK.replace("'(a+)+$'", "'(unclosed'").replace("backtrack", "b"),
    "bad_category.yaml": BACKTRACK.replace("node_crash", "not_a_category"),
    "bad_id.yaml": BACKTRACK.replace("hostile.backtrack", "Has Spaces"),
    "not_a_list.yaml": "rules: 5\n",
    "scalar.yaml": "just a string\n",
    "unknown_key.yaml": BACKTRACK + "    shell: rm -rf /\n",
    "duplicate.yaml": BACKTRACK + BACKTRACK.removeprefix("rules:\n"),
    "python_tag.yaml": f"rules:\n  - !!python/object/apply:os.system ['touch /tmp/{MARKER}']\n",
    "alias_bomb.yaml": (
        "a: &a ['x','x','x','x','x','x','x','x','x']\n"
        + "".join(
            f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},"
            f"*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)}]\n"
            for i in range(8)
        )
        + "rules: *i\n"
    ),
    "binary.yaml": random.Random(5).randbytes(2000),
    "latin1.yaml": "rules:\n  - id: x.y\n    title: d\xe9j\xe0\n".encode("latin-1"),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_a_malformed_pattern_file_is_one_clear_line_and_exit_2(name, logs, tmp_path):
    d = tmp_path / "patterns"
    d.mkdir()
    content = MALFORMED[name]
    path = d / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    marker = Path("/tmp") / MARKER
    marker.unlink(missing_ok=True)
    start = time.monotonic()
    proc = tfdiag("analyze", str(logs), "--patterns", str(d), cwd=tmp_path, timeout=120)
    assert time.monotonic() - start < 60
    assert not marker.exists(), "a YAML tag in a pattern file ran a command"
    lines = proc.stderr.strip().splitlines()
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.returncode == 2, f"exit {proc.returncode}: {proc.stderr[-2000:]}"
    assert len(lines) == 1 and lines[0].startswith("tfdiag:"), proc.stderr
    assert str(path) in lines[0] or name in lines[0], lines[0]
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr


def test_patterns_option_must_be_a_folder(logs, tmp_path):
    (tmp_path / "file.yaml").write_text(BACKTRACK)
    for bad in (tmp_path / "file.yaml", tmp_path / "missing"):
        proc = tfdiag("analyze", str(logs), "--patterns", str(bad), cwd=tmp_path)
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
