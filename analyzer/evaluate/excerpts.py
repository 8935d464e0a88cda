"""``tfdiag evaluate DIR`` for a folder of single-file excerpts with a ``labels.csv``.

Each excerpt is what a user pastes: one node's lines, no peers. Every file is analysed on its
own, exactly as ``tfdiag analyze FILE`` does (the condensed path), and the verdict's category is
compared with the row's ``label`` (``benign`` expects ``none``). The table gives, per family,
recall (failures whose category is right) and benign-clean (benign excerpts judged ``none``)
for the ``tune`` and ``holdout`` splits, each batch (``fresh``, ``fresh3``, ``fresh4``) and all::

    python -m analyzer.evaluate.excerpts tests/corpus/excerpts
    tfdiag evaluate tests/corpus/excerpts

The split rule is fixed in the corpus's README (``split_of``): rules are written while looking at
``tune`` only; ``holdout`` is the figure that was not tuned on. ``fresh``, ``fresh3`` and ``fresh4`` rows were
collected as batches after the rules existed, committed with their labels, then measured once
(``--only fresh4``); their split is their batch, not their name.
"""

from __future__ import annotations

import csv
import hashlib
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

LABELS = "labels.csv"
COLUMNS = ("file", "label", "family", "source", "split", "notes")
#: Named splits, in table order; ``all`` is every row.
NAMED_SPLITS = (
    "tune",
    "holdout",
    "fresh",
    "fresh3",
    "fresh4",
    "fresh5",
    "fresh6",
    "fresh7",
    "fresh8",
    "fresh9",
    "fresh10",
    "fresh11",
    "fresh12",
    "fresh13",
    "fresh14",
    "fresh15",
    "fresh16",
    "fresh17",
    "fresh18",
    "fresh19",
    "fresh20",
    "fresh21",
    "fresh22",
    "fresh23",
    "fresh24",
    "fresh25",
    "fresh26",
)
SPLITS = (*NAMED_SPLITS, "all")
FRESH = "fresh"
#: Batches collected after the rules existed, each measured once on arrival (their split is the
#: batch, not the name rule).
BATCHES = frozenset(s for s in NAMED_SPLITS if s.startswith(FRESH))


def split_of(file: str) -> str:
    """The corpus's fixed split rule: a third of the file names (by SHA-1) are held out."""
    return "holdout" if int(hashlib.sha1(file.encode()).hexdigest(), 16) % 3 == 0 else "tune"


def valid_split(file: str, split: str) -> bool:
    """A row's split is a batch measured once on arrival (see :data:`BATCHES`) or the name
    rule's."""
    return split in BATCHES or split == split_of(file)


def is_corpus(folder: str | Path) -> bool:
    return (Path(folder) / LABELS).is_file()


def read_labels(folder: str | Path) -> list[dict[str, str]]:
    with (Path(folder) / LABELS).open(newline="", encoding="utf-8") as f:
        return [dict(row) for row in csv.DictReader(f)]


def judge(path: Path) -> dict[str, Any]:
    """The verdict of ``tfdiag analyze PATH`` (condensed path) for one excerpt."""
    from analyzer.run import Options, load

    run = load(path, options=Options(condensed=True, workers=1))
    rc = run.root_cause
    return {"category": rc.category, "node": rc.node, "summary": rc.summary}


def evaluate(folder: str | Path, *, only: str | None = None) -> list[dict[str, Any]]:
    """One row per excerpt (of split ``only``, if given): the label, the verdict, whether right."""
    root = Path(folder)
    rows: list[dict[str, Any]] = []
    for entry in read_labels(root):
        if only is not None and entry["split"] != only:
            continue
        row: dict[str, Any] = dict(entry)
        expected = "none" if entry["label"] == "benign" else entry["label"]
        row["expected"] = expected
        try:
            row.update(judge(root / entry["file"]))
        except Exception as exc:  # one broken excerpt must not stop the evaluation
            row.update(category="error", node=None, summary=repr(exc))
        row["right"] = row["category"] == expected
        rows.append(row)
    return rows


def figures(rows: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, tuple[int, int]]]]:
    """``{family: {split: (right, total)}}`` plus the ``recall`` and ``benign_clean`` totals."""
    table: dict[str, dict[str, list[int]]] = defaultdict(lambda: {s: [0, 0] for s in SPLITS})
    for r in rows:
        family = "benign" if r["label"] == "benign" else r["family"]
        total = "benign_clean" if r["label"] == "benign" else "recall"
        for key in (family, total):
            for split in (r["split"], "all"):
                table[key][split][0] += int(r["right"])
                table[key][split][1] += 1
    return {k: {s: (v[s][0], v[s][1]) for s in SPLITS} for k, v in table.items()}


def _cell(pair: tuple[int, int]) -> str:
    right, total = pair
    return f"{right}/{total} ({right / total:.0%})" if total else "–"


def markdown(rows: list[dict[str, Any]]) -> str:
    """The per-family table (Markdown) and the wrong verdicts."""
    fig = figures(rows)
    present = {r["split"] for r in rows}
    splits = [s for s in NAMED_SPLITS if s in present] + ["all"]
    families = sorted(k for k in fig if k not in ("recall", "benign_clean", "benign"))
    lines = ["| family | " + " | ".join(splits) + " |", "|---|" + "---:|" * len(splits)]
    for key in [*families, "benign"]:
        if key in fig:
            lines.append(f"| {key} | " + " | ".join(_cell(fig[key][s]) for s in splits) + " |")
    for key, name in (("recall", "**recall**"), ("benign_clean", "**benign-clean**")):
        if key in fig:
            lines.append(f"| {name} | " + " | ".join(_cell(fig[key][s]) for s in splits) + " |")
    return "\n".join(lines)


def wrong(rows: list[dict[str, Any]]) -> list[str]:
    return [
        f"{r['split']:7} {r['file']}: expected {r['expected']}, got {r['category']}"
        for r in rows
        if not r["right"]
    ]


def main(folder: str | Path, *, only: str | None = None) -> int:
    """Print the table and the wrong verdicts; 0 when every verdict is right, else 1.

    ``only`` (one of :data:`NAMED_SPLITS`) restricts the evaluation to one split.
    """
    if only is not None and only not in NAMED_SPLITS:
        print(f"--only takes one of {', '.join(NAMED_SPLITS)}, not {only!r}")
        return 2
    rows = evaluate(folder, only=only)
    if not rows:
        print(f"no excerpt listed in {Path(folder) / LABELS}")
        return 1
    print(f"excerpts: {len(rows)} ({folder}); each analysed alone as `tfdiag analyze FILE`\n")
    print(markdown(rows))
    bad = wrong(rows)
    if bad:
        print(f"\nwrong ({len(bad)}):")
        print("\n".join(bad))
    return 0 if not bad else 1


if __name__ == "__main__":
    args = sys.argv[1:]
    split = None
    if args and args[0].startswith("--only="):
        split = args.pop(0).split("=", 1)[1]
    sys.exit(main(args[0] if args else "tests/corpus/excerpts", only=split))
