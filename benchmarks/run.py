"""Time ``tfdiag analyze`` against lnav and ripgrep on the same files, runs alternating, and
measure the peak memory of each command's whole process tree.

    python benchmarks/run.py benchmarks/data/quiet-1g benchmarks/data/noisy-1g --runs 5 --json out.json

For each folder (made by ``benchmarks/generate.py``; its ``truth.json`` names the profile) the
commands are: ``tfdiag analyze DIR --no-color`` (the whole command a user runs: discover, parse,
classify, diagnose, terminal report; output discarded), lnav indexing the files
(``lnav -n -c ';SELECT count(*) FROM all_logs' FILES``), ripgrep counting the lines that hold
any keyword of the pattern library (``rg -c -F -i -f KEYWORDS FILES``) and ``cat FILES | wc -l``
as a floor (each only when installed). Every command runs once as a warm-up (page cache,
imports), then ``--runs`` times, the commands taking turns within each round.

Wall time is measured around each process (``time.perf_counter``). Peak memory is the peak of
the **sum of the resident set sizes of the process and all its descendants**, *sampled*: every
``--interval`` seconds (default 0.025) a thread lists ``/proc``, reads the ``stat`` of each pid
it has not seen (its parent, to find the descendants) and the ``statm`` of each process of the
tree (~0.4 ms a sample here). A peak shorter than the interval can be missed; the figure
reported is the larger of that sampled peak and the ``ru_maxrss`` of the largest single process
(exact, from ``wait4``). A page shared by several processes of the tree (a forked worker's
copy-on-write pages) counts in each, so the sum is an upper bound of the memory the tree uses.

Prints one Markdown table per folder: wall median, min–max, MB/s, lines/s, peak tree RSS, and
the ratio of each command's median wall time to lnav's, and how many messages lnav's ``all_logs`` holds (it
indexes a file whose format it does not recognise as plain text, which is cheaper).
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
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing
PAGE = os.sysconf("SC_PAGE_SIZE")
TFDIAG = "tfdiag analyze"
LNAV = "lnav index"


def keyword_file() -> Path:
    """A file with one keyword of the pattern library per line, for ``rg -F -f``."""
    from analyzer.rules import load_rules

    words = sorted({k for rule in load_rules() for k in rule.keywords})
    path = Path(tempfile.mkstemp(prefix="tfdiag-keywords-", suffix=".txt")[1])
    path.write_text("\n".join(words) + "\n")
    return path


class ProcessTable:
    """Parent pid of every process, from ``/proc/*/stat``; :meth:`refresh` reads only new pids.

    A process's parent does not change while it lives (but for re-parenting when its parent
    dies, which the tree loses anyway), so one listing of ``/proc`` per sample is enough.
    """

    def __init__(self) -> None:
        self.ppid: dict[int, int] = {}

    def refresh(self) -> None:
        alive = {int(name) for name in os.listdir("/proc") if name.isdigit()}
        for pid in self.ppid.keys() - alive:
            del self.ppid[pid]
        for pid in alive - self.ppid.keys():
            try:
                with open(f"/proc/{pid}/stat", "rb") as f:
                    stat = f.read()
            except OSError:
                continue  # gone meanwhile
            # the command name (field 2) is in parentheses and may hold spaces: split after it
            self.ppid[pid] = int(stat[stat.rindex(b")") + 2 :].split(None, 2)[1])

    def tree(self, root: int) -> list[int]:
        """``root`` and all its descendants."""
        kids: dict[int, list[int]] = {}
        for pid, parent in self.ppid.items():
            kids.setdefault(parent, []).append(pid)
        pids, todo = [], [root]
        while todo:
            pid = todo.pop()
            pids.append(pid)
            todo.extend(kids.get(pid, ()))
        return pids


def rss(pids: list[int]) -> int:
    """Sum of the resident set sizes of ``pids``, in bytes (a pid gone meanwhile counts 0)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm", "rb") as f:
                total += int(f.read().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            continue
    return total


def tree_pids(root: int) -> list[int]:
    """``root`` and all its descendants alive now."""
    table = ProcessTable()
    table.refresh()
    return table.tree(root)


def tree_rss(root: int) -> int:
    """Sum of the resident set sizes, in bytes, of ``root`` and its descendants now."""
    return rss(tree_pids(root))


class TreeSampler(threading.Thread):
    """Samples :func:`tree_rss` of ``pid`` every ``interval`` seconds until :meth:`stop`; keeps the peak."""

    def __init__(self, pid: int, interval: float = 0.025):
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.peak = 0
        self.samples = 0
        self._done = threading.Event()

    def run(self) -> None:
        table = ProcessTable()
        while not self._done.is_set():
            table.refresh()
            self.peak = max(self.peak, rss(table.tree(self.pid)))
            self.samples += 1
            self._done.wait(self.interval)

    def stop(self) -> int:
        self._done.set()
        self.join()
        return self.peak


@dataclass
class Measure:
    wall: float  #: seconds
    tree_rss_mb: float  #: peak of the process tree's summed RSS (sampled), at least ``max_rss_mb``
    max_rss_mb: float  #: ``ru_maxrss`` of the largest single process (exact)
    exit_code: int


def measure(cmd: list[str] | str, interval: float = 0.025) -> Measure:
    """Run ``cmd`` once (output discarded) and measure it."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        shell=isinstance(cmd, str),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,  # ``python -m analyzer`` imports this checkout
        # an installed tfdiag has its .pyc files; a PYTHONDONTWRITEBYTECODE=1 environment
        # would make every run compile its modules again (the warm-up run writes them)
        env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    )
    sampler = TreeSampler(proc.pid, interval)
    sampler.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    sampled = sampler.stop() / 1e6
    largest = usage.ru_maxrss * 1024 / 1e6
    return Measure(wall, max(sampled, largest), largest, proc.returncode)


def commands(folder: Path, files: list[str], tfdiag: str, keywords: Path) -> dict:
    cmds: dict[str, list[str] | str] = {TFDIAG: [*tfdiag.split(), str(folder), "--no-color"]}
    if shutil.which("lnav"):
        cmds[LNAV] = ["lnav", "-n", "-c", ";SELECT count(*) FROM all_logs", *files]
    if shutil.which("rg"):
        cmds["ripgrep (library keywords)"] = ["rg", "-c", "-F", "-i", "-f", str(keywords), *files]
    # the files as arguments of the shell, not inside its script (one argument is at most 128 KiB)
    cmds["cat | wc -l"] = ["sh", "-c", 'cat -- "$@" | wc -l', "sh", *files]
    return cmds


def bench_folder(folder: Path, runs: int, tfdiag: str, keywords: Path, interval: float) -> dict:
    folder = folder.resolve()
    files = sorted(str(p) for p in folder.rglob("*") if p.is_file() and p.name != "truth.json")
    if not files:
        sys.exit(f"benchmarks/run.py: no log files under {folder}")
    truth_path = folder / "truth.json"
    truth = json.loads(truth_path.read_text()) if truth_path.exists() else {}
    size_mb = sum(os.path.getsize(f) for f in files) / 1e6
    cmds = commands(folder, files, tfdiag, keywords)
    results: dict[str, list[Measure]] = {name: [] for name in cmds}
    for cmd in cmds.values():  # one warm-up each (page cache, imports)
        measure(cmd, interval)
    for _ in range(runs):
        for name, cmd in cmds.items():
            results[name].append(measure(cmd, interval))
    lines = truth.get("lines")
    table = {}
    for name, ms in results.items():
        walls = [m.wall for m in ms]
        med = statistics.median(walls)
        table[name] = {
            "wall_median": med,
            "wall_min": min(walls),
            "wall_max": max(walls),
            "mb_per_s": size_mb / med,
            "lines_per_s": lines / med if lines else None,
            "peak_tree_rss_mb": max(m.tree_rss_mb for m in ms),
            "largest_process_rss_mb": max(m.max_rss_mb for m in ms),
            "exit_codes": sorted({m.exit_code for m in ms}),
        }
    lnav = table.get(LNAV, {}).get("wall_median")
    for row in table.values():
        row["ratio_to_lnav"] = row["wall_median"] / lnav if lnav else None
    return {
        "folder": str(folder),
        "profile": truth.get("profile", folder.name),
        "files": len(files),
        "input_mb": size_mb,
        "lines": lines,
        "error_share": truth.get("error_share"),
        "repeated_warning_share": truth.get("repeated_warning_share"),
        "runs": runs,
        "lnav_log_lines": lnav_count(files) if LNAV in cmds else None,
        "results": table,
    }


def lnav_count(files: list[str]) -> int | None:
    """How many messages lnav's ``all_logs`` holds: it indexes a file whose format it does not
    recognise as plain text, which costs it less, so its time is read with this count."""
    try:
        out = subprocess.run(
            ["lnav", "-n", "-c", ";SELECT count(*) FROM all_logs", *files],
            capture_output=True,
            text=True,
            timeout=3600,
        ).stdout
        return int(out.split()[-1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return None


def markdown(res: dict) -> str:
    lines = res["lines"]
    head = (
        f"**{res['profile']}** — {res['folder']}: {res['files']:,} files, {res['input_mb']:,.0f} MB"
        + (f", {lines:,} lines" if lines else "")
        + (f", {res['error_share']:.1%} error lines" if res.get("error_share") is not None else "")
        + (
            f", {res['repeated_warning_share']:.1%} repeated warnings"
            if res.get("repeated_warning_share")
            else ""
        )
        + f"; {res['runs']} runs each, alternating; {os.cpu_count()} cores"
    )
    if res.get("lnav_log_lines") is not None and lines:
        head += (
            f"; lnav's all_logs holds {res['lnav_log_lines']:,} messages "
            f"({res['lnav_log_lines'] / lines:.0%} of the lines: continuation lines join a "
            "message, files of a format it does not know are plain text to it)"
        )
    out = [
        head,
        "",
        "| command | wall s (median) | min–max | MB/s | lines/s | peak tree RSS MB | ÷ lnav | exit |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, r in res["results"].items():
        lps = f"{r['lines_per_s']:,.0f}" if r["lines_per_s"] else "—"
        ratio = f"{r['ratio_to_lnav']:.2f}" if r["ratio_to_lnav"] else "—"
        codes = ",".join(map(str, r["exit_codes"]))
        out.append(
            f"| {name.replace('|', chr(92) + '|')} | {r['wall_median']:.2f} | {r['wall_min']:.2f}–{r['wall_max']:.2f} | "
            f"{r['mb_per_s']:,.0f} | {lps} | {r['peak_tree_rss_mb']:,.0f} | {ratio} | {codes} |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, nargs="+", help="folders made by benchmarks/generate.py")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--tfdiag",
        default=f"{sys.executable} -m analyzer analyze",
        help="the analyze command; the folder is appended (default: this checkout's)",
    )
    parser.add_argument("--interval", type=float, default=0.025, help="RSS sampling period, s")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be 1 or more")
    for folder in args.data:
        if not folder.is_dir():
            parser.error(f"not a folder: {folder}")
    keywords = keyword_file()
    try:
        everything = []
        for folder in args.data:
            res = bench_folder(folder, args.runs, args.tfdiag, keywords, args.interval)
            everything.append(res)
            print(markdown(res), end="\n\n", flush=True)
    finally:
        keywords.unlink()
    if args.json:
        machine = {"cores": os.cpu_count(), "interval_s": args.interval}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"machine": machine, "sets": everything}, indent=2) + "\n")


if __name__ == "__main__":
    main()
