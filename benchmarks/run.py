"""Time ``tfdiag analyze`` against baselines on the same files, runs alternating.

    python benchmarks/run.py benchmarks/data/1g --runs 5

Baselines (each only when installed): ripgrep counting the lines that hold any keyword of the
pattern library (``rg -c``), ``cat | wc -l``, and lnav indexing the files
(``lnav -n -c ';SELECT count(*) FROM all_logs'``). Each command is a separate process; its wall
time is measured around it and its peak memory is the child's ``ru_maxrss`` (the largest single
process; tfdiag's parse processes are counted separately, see ``--workers``). Prints a Markdown
table with medians, MB/s, lines/s, peak RSS and the ratio of tfdiag to each baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing


def keyword_file() -> Path:
    """A file with one keyword of the pattern library per line, for ``rg -F -f``."""
    from analyzer.rules import load_rules

    words = sorted({k for rule in load_rules() for k in rule.keywords})
    path = Path(tempfile.mkstemp(prefix="tfdiag-keywords-", suffix=".txt")[1])
    path.write_text("\n".join(words) + "\n")
    return path


def measure(cmd: list[str] | str) -> tuple[float, float, int]:
    """Run ``cmd`` once; return (wall seconds, peak RSS in MB of its largest process, exit code)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, shell=isinstance(cmd, str), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="a folder made by benchmarks/generate.py")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tfdiag", default=f"{sys.executable} -m analyzer")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()

    files = sorted(str(p) for p in args.data.iterdir() if p.is_file())
    size_mb = sum(os.path.getsize(f) for f in files) / 1e6
    summary = args.data.parent / f"{args.data.name}.json"
    lines = json.loads(summary.read_text())["lines"] if summary.exists() else None
    keywords = keyword_file()
    commands: dict[str, list[str] | str] = {
        "tfdiag analyze": [*args.tfdiag.split(), "analyze", str(args.data), "--no-color"],
    }
    if shutil.which("rg"):
        commands["ripgrep (library keywords)"] = [
            "rg",
            "-c",
            "-F",
            "-i",
            "-f",
            str(keywords),
            *files,
        ]
    commands["cat | wc -l"] = f"cat {' '.join(files)} | wc -l"
    if shutil.which("lnav"):
        commands["lnav index"] = ["lnav", "-n", "-c", ";SELECT count(*) FROM all_logs", *files]

    results: dict[str, list[tuple[float, float, int]]] = {name: [] for name in commands}
    for cmd in commands.values():  # one warm-up each (page cache, imports)
        measure(cmd)
    for _ in range(args.runs):
        for name, cmd in commands.items():
            results[name].append(measure(cmd))
    keywords.unlink()

    ours = statistics.median(w for w, _, _ in results["tfdiag analyze"])
    print(
        f"input: {args.data} — {len(files)} files, {size_mb:,.0f} MB"
        + (f", {lines:,} lines" if lines else "")
        + f"; {args.runs} runs each, alternating; "
        f"{os.cpu_count()} cores"
    )
    print()
    print("| command | wall s (median) | min–max | MB/s | lines/s | peak RSS MB | tfdiag ÷ this |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    table = {}
    for name, runs in results.items():
        walls = [w for w, _, _ in runs]
        med = statistics.median(walls)
        rss = max(r for _, r, _ in runs)
        codes = sorted({c for _, _, c in runs})
        table[name] = {
            "wall_median": med,
            "wall_min": min(walls),
            "wall_max": max(walls),
            "rss_mb": rss,
            "exit_codes": codes,
        }
        lps = f"{lines / med:,.0f}" if lines else "—"
        print(
            f"| {name} | {med:.2f} | {min(walls):.2f}–{max(walls):.2f} | {size_mb / med:,.0f} | {lps} | "
            f"{rss:,.0f} | {ours / med:.2f} |"
        )
    if args.json:
        args.json.write_text(
            json.dumps({"input_mb": size_mb, "lines": lines, "results": table}, indent=2)
        )


if __name__ == "__main__":
    main()
