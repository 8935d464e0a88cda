"""Shared fixtures: the repository root and the real sample logs."""

from __future__ import annotations

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
