"""The built wheel works on its own: installed in a fresh virtual environment, run elsewhere."""

from __future__ import annotations

import subprocess
import sys
import venv

import pytest
from conftest import ROOT, sample_folders


@pytest.mark.slow
def test_wheel_installs_and_analyzes_from_another_directory(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    wheel = next(dist.glob("tfdiag-*.whl"))
    import zipfile

    names = zipfile.ZipFile(wheel).namelist()
    assert "analyzer/report/templates/report.html.j2" in names
    assert any(n.startswith("analyzer/_patterns/") and n.endswith(".yaml") for n in names)
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    pip = env_dir / "bin" / "pip"
    subprocess.run(
        [str(pip), "install", "-q", str(wheel)], check=True, capture_output=True, timeout=900
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    folder = sample_folders()[0] if sample_folders() else None
    if folder is None:
        pytest.fail("sample_logs/ has no scenario folder to analyze")
    proc = subprocess.run(
        [str(env_dir / "bin" / "tfdiag"), "analyze", str(folder), "--no-color"],
        capture_output=True,
        text=True,
        cwd=elsewhere,
        timeout=300,
    )
    assert proc.returncode in (0, 1), proc.stderr
    assert "lines read" in proc.stdout
    # the pattern library ships inside the wheel
    proc = subprocess.run(
        [str(env_dir / "bin" / "tfdiag"), "patterns", "list"],
        capture_output=True,
        text=True,
        cwd=elsewhere,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "grpc." in proc.stdout
