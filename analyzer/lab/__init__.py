"""tfdiag's fault-injection lab: run small real TensorFlow clusters on 127.0.0.1,
break them on purpose, and keep each node's log plus a ``truth.json``.

Importing this package is cheap: the driver never imports TensorFlow; only the
child training scripts in ``analyzer/lab/tasks/`` do.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import re
import signal
import time
from pathlib import Path

from . import matrix as _matrix
from ._runner import Lab, rotate, task_name, utc_now
from .scenarios import SCENARIO_FUNCS, Outcome, Scenario, ScenarioError

__all__ = [
    "SCENARIOS",
    "Scenario",
    "ScenarioError",
    "list_scenarios",
    "run_scenario",
    "tensorflow_available",
]

_ORDER = (
    "ps_killed",
    "worker_killed",
    "port_in_use",
    "wrong_port_in_spec",
    "missing_worker",
    "stalled_worker_deadline",
    "dtype_mismatch",
    "oom_worker",
    "late_worker_tf1",
    "concurrent_hdf5",
    "preempted_worker",
    "version_mismatch",
    "healthy",
    "clock_skew",
)
_ALL: dict[str, Scenario] = {
    name: Scenario(name, desc, cat, fn, cluster) for name, desc, cat, cluster, fn in SCENARIO_FUNCS
}
# Named cells of the matrix (analyzer/lab/matrix/): run by its generic launcher.
for _name, (_desc, _cell) in _matrix.NAMED.items():
    _ALL[_name] = Scenario(
        _name,
        _desc,
        _matrix.USUAL_CATEGORY.get(_cell.fault, _matrix.FAULTS[_cell.fault].category),
        None,
        _matrix.STYLES[_cell.style].cluster,
    )
SCENARIOS: dict[str, Scenario] = {n: _ALL[n] for n in _ORDER if n in _ALL} | {
    n: s for n, s in _ALL.items() if n not in _ORDER
}


def list_scenarios() -> list[tuple[str, str]]:
    """``(name, one-sentence description)`` for every scenario, in lab order."""
    return [(s.name, s.description) for s in SCENARIOS.values()]


def tensorflow_available() -> bool:
    """True when ``tensorflow`` is importable (checked without importing it)."""
    try:
        return importlib.util.find_spec("tensorflow") is not None
    except (ImportError, ValueError):
        return False


def _read_text(path: Path) -> str:
    if path.name.endswith(".gz"):
        with gzip.open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    return path.read_text(encoding="utf-8", errors="replace")


def _piece_order(name: str) -> int:
    """Chronological rank of a rotated piece: ``x.2.gz`` < ``x.1`` < ``x``."""
    m = re.search(r"\.(\d+)(\.gz)?$", name)
    return -int(m.group(1)) if m else 0


def _node_texts(out_dir: Path, files: list[str]) -> list[tuple[str, str]]:
    ordered = sorted(files, key=_piece_order)
    return [(f, _read_text(out_dir / f)) for f in ordered]


def _find_evidence(out_dir: Path, node_files: dict[str, list[str]], expect) -> list[dict]:
    found = []
    for node_alt, pattern in expect:
        rx = re.compile(pattern)
        hit = None
        for node in node_alt.split("|"):
            for fname, text in _node_texts(out_dir, node_files.get(node, [])):
                for no, line in enumerate(text.splitlines(), 1):
                    if rx.search(line):
                        hit = {
                            "node": node,
                            "file": fname,
                            "line_no": no,
                            "text": line[:400],
                            "pattern": pattern,
                        }
                        break
                if hit:
                    break
            if hit:
                break
        found.append(hit or {"node": node_alt, "pattern": pattern, "file": None})
    return found


def _versions(out_dir: Path, node_files: dict[str, list[str]]) -> dict[str, str]:
    out = {}
    for node, files in node_files.items():
        for _, text in _node_texts(out_dir, files):
            m = re.search(r"^tf\.__version__ = (\S+)", text, re.M)
            if m:
                out[node] = m.group(1)
                break
    return out


def _describe_code(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"{code} ({signal.Signals(-code).name})"
        except ValueError:
            return str(code)
    return str(code)


def run_scenario(
    name: str, out_dir: Path, *, timeout: float = 240.0, python: str | None = None
) -> dict:
    """Run scenario ``name``; write node logs and ``truth.json`` into ``out_dir``.

    ``python`` is the interpreter for the child tasks (default: this one).
    Returns the truth dict.  Raises ``ValueError`` for an unknown name and
    :class:`ScenarioError` (or, for the matrix's named cells,
    :class:`~analyzer.lab.matrix.CellError`) when the fault did not show up as
    planned (the logs are left in ``out_dir`` for inspection).
    """
    if name not in SCENARIOS:
        raise ValueError(f"unknown scenario {name!r}; known: {', '.join(SCENARIOS)}")
    scenario = SCENARIOS[name]
    if name in _matrix.NAMED:
        truth = _matrix.run_cell(_matrix.NAMED[name][1], Path(out_dir), timeout=timeout)
        truth["scenario"], truth["description"] = name, scenario.description
        Path(out_dir, "truth.json").write_text(json.dumps(truth, indent=2) + "\n", "utf-8")
        return truth
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "truth.json").unlink(missing_ok=True)
    started = time.monotonic()
    started_utc = utc_now()
    lab = Lab(out_dir, timeout, python)
    outcome: Outcome | None = None
    try:
        outcome = scenario.run(lab)
    finally:
        exit_codes = lab.cleanup()
    wall = round(time.monotonic() - started, 1)

    node_files: dict[str, list[str]] = {
        node: [p.log_path.relative_to(out_dir).as_posix()] for node, p in lab.procs.items()
    }
    for node in outcome.rotate:
        proc = lab.procs[node]
        names = rotate(proc.log_path)
        parent = proc.log_path.parent.relative_to(out_dir)
        node_files[node] = [(parent / n).as_posix() for n in names]
    for node in outcome.missing_nodes:
        node_files[node] = []

    evidence = _find_evidence(out_dir, node_files, outcome.expect)
    versions = _versions(out_dir, node_files)
    distinct = sorted(set(versions.values()))
    ffn = outcome.first_failing_node
    codes = {n: exit_codes.get(n) for n in outcome.nodes if n in exit_codes}
    notes = outcome.notes.rstrip()
    if codes:
        notes += " Exit codes: " + ", ".join(f"{n}={_describe_code(c)}" for n, c in codes.items())
        notes += "."
    if outcome.missing_nodes:
        notes += " Never started (no log): " + ", ".join(outcome.missing_nodes) + "."
    truth = {
        "scenario": name,
        "description": scenario.description,
        "nodes": outcome.nodes,
        "first_failing_node": ffn,
        "task": task_name(ffn) if ffn else None,
        "root_cause_category": outcome.category,
        "fault_time_utc": lab.fault_time_utc,
        "tensorflow_version": distinct[0] if len(distinct) == 1 else ", ".join(distinct),
        "notes": notes,
        "node_files": {n: node_files.get(n, []) for n in outcome.nodes},
        "missing_nodes": outcome.missing_nodes,
        "tensorflow_versions": versions,
        "exit_codes": codes,
        "evidence": evidence,
        "verified": all(e.get("file") for e in evidence),
        "run_started_utc": started_utc,
        "wall_time_seconds": wall,
        "cluster": scenario.cluster,
    }
    truth.update(outcome.extra)
    (out_dir / "truth.json").write_text(json.dumps(truth, indent=2) + "\n", encoding="utf-8")
    return truth
