"""Judge every line of templates.tsv alone, as `tfdiag analyze FILE` would, and list disagreements.

    python tests/templates/check_templates.py tests/templates/templates.tsv [-v]

Each row is ``expected<TAB>text`` (``\\n`` in text separates lines). Each text is written to its own
file and judged by the condensed (excerpt) path; the winning rule of each line is shown for the
rows whose verdict differs from the expected category. Run it with the interpreter and the
PYTHONPATH of the checkout to measure (see README.md).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from analyzer.evaluate.excerpts import judge
from analyzer.rules import load_rules, split_example_line


def main(path: str, verbose: bool = False) -> int:
    rules = load_rules()
    tmp = Path(tempfile.mkdtemp(prefix="tfdiag-templates-"))
    rows = [r for r in Path(path).read_text(encoding="utf-8").splitlines() if r.strip()]
    wrong = 0
    for i, row in enumerate(rows):
        expected, text = row.split("\t", 1)
        text = text.replace("\\n", "\n")
        f = tmp / f"t{i}.txt"
        f.write_text(text + "\n", encoding="utf-8")
        try:
            got = judge(f)["category"]
        except Exception as exc:  # a broken row must not stop the check
            got = f"error {exc!r}"[:60]
        ok = got == expected
        wrong += not ok
        if not ok or verbose:
            winners = []
            for line in text.splitlines():
                ev = split_example_line(line)
                won = rules.match_event(
                    ev["message"], None, ev["level"], ev["source"], ev["format"]
                )
                winners.append(won[0].id if won else "-")
            mark = "ok " if ok else "XX "
            print(f"{mark}{expected:22} got {got:22} {','.join(winners)[:60]:60} {text[:120]!r}")
    print(f"{len(rows) - wrong}/{len(rows)} right")
    return 0 if wrong == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], "-v" in sys.argv[2:]))
