"""Shared fixtures: the repository root and the real sample logs."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_LOGS = ROOT / "sample_logs"


def sample_folders() -> list[Path]:
    """Every sample_logs/<scenario>/ folder that carries a truth.json."""
    return sorted(p.parent for p in SAMPLE_LOGS.glob("*/truth.json"))


@pytest.fixture
def write_log(tmp_path):
    """Write ``text`` (str or bytes) to ``tmp_path/name`` and return the path."""

    def write(name: str, text: str | bytes) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, str):
            text = text.encode()
        path.write_bytes(text)
        return path

    return write


def changed_run(run: Path, tmp_path: Path, name: str, edit: Callable[[str], str]):
    """``run`` copied, its file ``name`` rewritten as ``edit(text)``, analysed as ``analyze``
    does (the condensed path): a real run next to a copy changed so a signal must turn off."""
    import analyzer

    dst = tmp_path / "run"
    shutil.copytree(run, dst)
    path = dst / name
    if name.endswith(".gz"):  # a rotated or compressed log is edited as its text
        import gzip

        path.write_bytes(gzip.compress(edit(gzip.decompress(path.read_bytes()).decode()).encode()))
    else:
        path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    return analyzer.load(dst, condensed=True)


def without(*words: str) -> Callable[[str], str]:
    """An edit that drops the lines holding any of ``words``."""
    return lambda text: "".join(
        x for x in text.splitlines(keepends=True) if not any(w in x for w in words)
    )


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (``-n auto --dist loadgroup``, the README's test command) the tests
    of a module that share a module-scoped fixture run on one worker, so the fixture (a corpus
    evaluated once, a job diagnosed once) is built once; every other test goes where there is
    room."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        defs = info.name2fixturedefs.values() if info else ()
        if any(d and d[-1].scope == "module" for d in defs):
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))
