"""Another TensorFlow build, told by the source lines of the messages every node logs."""

from __future__ import annotations

import shutil
from pathlib import Path

import analyzer

SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"


def _without_printed_versions(dest: Path) -> Path:
    """The version_mismatch sample (worker:1 runs TF 2.19.1, the others 2.21.0) with every line
    that prints a version removed: only the absl ``file.cc:line]`` prefixes are left to tell."""
    shutil.copytree(SAMPLES / "version_mismatch", dest, ignore=shutil.ignore_patterns("truth.json"))
    for log in dest.glob("*.log"):
        kept = [
            line
            for line in log.read_text().splitlines(keepends=True)
            if "__version__" not in line and "TensorFlow version" not in line
        ]
        log.write_text("".join(kept))
    return dest


def test_printed_versions_are_reported_once(tmp_path: Path):
    run = analyzer.load(SAMPLES / "version_mismatch")
    notes = run.diagnosis.consistency
    assert any(n.startswith("tensorflow versions differ") for n in notes)
    assert not any("another TensorFlow build" in n for n in notes)


def test_source_lines_tell_the_odd_build(tmp_path: Path):
    run = analyzer.load(_without_printed_versions(tmp_path / "vm"))
    notes = run.diagnosis.consistency
    builds = [n for n in notes if "another TensorFlow build" in n]
    assert len(builds) == 1 and builds[0].startswith("worker:1 ")
    assert not any(n.startswith("tensorflow versions differ") for n in notes)
    assert (run.root_cause.node, run.root_cause.category) == ("worker:1", "version_mismatch")


def test_one_build_everywhere_says_nothing():
    for name in ("healthy", "ps_killed", "worker_killed"):
        notes = analyzer.load(SAMPLES / name).diagnosis.consistency
        assert not any("build" in n for n in notes), name
