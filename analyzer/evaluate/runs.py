"""``tfdiag evaluate``: diagnose labelled incidents and compare with their ``truth.json``.

A labelled incident is a folder with a ``truth.json`` (shared/contract.md) beside its logs.
Give the folders themselves or any parent of them::

    python -m analyzer.evaluate.runs sample_logs
    tfdiag evaluate sample_logs/ps_killed sample_logs/port_in_use

A verdict is right when both the node and the category match the truth (a healthy run's truth
has no first failing node and category ``none``). Exit code 0 when every verdict is right.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def find_cases(folders: list[str]) -> list[Path]:
    """Folders holding a truth.json: the given ones, or their subfolders (sorted, unique)."""
    found: list[Path] = []
    for folder in folders:
        root = Path(folder)
        if (root / "truth.json").is_file():
            found.append(root)
        elif root.is_dir():
            found.extend(p.parent for p in sorted(root.rglob("truth.json")))
    unique: dict[Path, Path] = {p.resolve(): p for p in found}
    return sorted(unique.values())


def evaluate_one(folder: Path) -> dict[str, Any]:
    """Diagnose one folder; the row of the evaluation table."""
    import analyzer

    try:
        truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # vanished or half-written while we looked
        truth = {"scenario": folder.name, "root_cause_category": "?", "_error": repr(exc)}
    row: dict[str, Any] = {
        "scenario": truth.get("scenario") or folder.name,
        "folder": str(folder),
        "truth_node": truth.get("first_failing_node"),
        "truth_category": truth.get("root_cause_category") or "none",
    }
    try:
        if "_error" in truth:
            raise RuntimeError(f"unreadable truth.json: {truth['_error']}")
        rc = analyzer.load(folder).root_cause
    except Exception as exc:  # one broken incident must not stop the evaluation
        row.update(node=None, category="error", confidence=0.0, right=False, error=repr(exc))
        return row
    row.update(
        node=rc.node,
        category=rc.category,
        confidence=float(rc.confidence),
        summary=rc.summary,
        ambiguity=rc.ambiguity,
    )
    row["node_right"] = rc.node == row["truth_node"]
    row["category_right"] = rc.category == row["truth_category"]
    row["right"] = row["node_right"] and row["category_right"]
    return row


def evaluate(folders: list[str]) -> list[dict[str, Any]]:
    """One result dict per labelled incident found under ``folders``."""
    return [evaluate_one(case) for case in find_cases(folders)]


def _table(rows: list[dict[str, Any]]):
    from rich.table import Table

    table = Table(title="tfdiag evaluation")
    for name in ("scenario", "truth", "verdict", "result", "confidence"):
        table.add_column(name, justify="right" if name == "confidence" else "left")
    for r in rows:
        truth = f"{r['truth_node'] or '-'} / {r['truth_category']}"
        verdict = f"{r['node'] or '-'} / {r['category']}"
        result = "[green]right[/green]" if r["right"] else "[red]wrong[/red]"
        if r.get("error"):
            result = f"[red]error: {r['error'][:60]}[/red]"
        table.add_row(r["scenario"], truth, verdict, result, f"{r['confidence']:.2f}")
    return table


def main(folders: list[str]) -> int:
    """Print the evaluation table and accuracy; 0 when every verdict is right, else 1."""
    from rich.console import Console

    console = Console()
    if not console.is_terminal:
        console = Console(width=140)
    rows = evaluate(folders)
    if not rows:
        console.print(f"no folder with a truth.json under: {' '.join(folders)}")
        return 1
    console.print(_table(rows))
    right = sum(r["right"] for r in rows)
    console.print(f"accuracy: {right}/{len(rows)} = {right / len(rows):.0%}")
    return 0 if right == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["sample_logs"]))
