"""The tree is ruff-clean (lint and format), as pyproject.toml configures it."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from conftest import ROOT


def ruff(*args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("ruff") or str(__import__("pathlib").Path(sys.executable).parent / "ruff")
    return subprocess.run([exe, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    "args", [("check", "."), ("format", "--check", ".")], ids=["lint", "format"]
)
def test_ruff(args):
    proc = ruff(*args)
    assert proc.returncode == 0, proc.stdout + proc.stderr
