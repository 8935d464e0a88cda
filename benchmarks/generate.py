"""Build a large multi-node benchmark set from the real lines of ``sample_logs/``.

    python benchmarks/generate.py --size 1G --nodes 64 -o benchmarks/data/1g

Every line is a real TensorFlow line recorded by the lab (INFO noise, proto dumps, Python
logging, absl lines, tracebacks), re-timed so that each node's log runs forward in time. About
0.1 % of the lines are real error lines, and the set ends in a real fault cascade: ``ps:0``
goes silent, then every worker and the chief log the errors a lost parameter server causes.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing
SAMPLES = ROOT / "sample_logs"

_PY_TS = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}")
_ABSL_EPOCH = re.compile(r"^([IWEF])0000 00:00:\d+\.\d+")
_ABSL = re.compile(r"^([IWEF])\d{4} \d\d:\d\d:\d\d\.\d+")
_TF_CPP = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+")
_ERRORISH = re.compile(
    r"Error|ERROR|UNAVAILABLE|Unavailable|failed|Traceback|refused|Socket closed|reset by peer|"
    r"Deadline|DEADLINE|aborted|Aborted|exception|Killed",
)


def size_arg(text: str) -> int:
    """``100M``, ``1G``, ``4G`` → bytes."""
    units = {"K": 1024, "M": 1024**2, "G": 1024**3}
    text = text.strip().upper()
    if text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


_STEP_LINES = re.compile(r"\bstep \d+(?:/\d+)? loss [\d.]+")


@dataclass
class Pools:
    """Real lines of the sample logs, sorted by the part of a run they come from."""

    startup: list[
        list[str]
    ]  #: the first lines of each node log (TF_CONFIG, versions, server start)
    steps: list[str]  #: training progress lines (``step 2 loss 39.9``)
    noise: list[str]  #: other mid-run lines that are not errors
    errors: list[str]
    tracebacks: list[list[str]]


def read_sample_lines() -> Pools:
    """Sort every line of the sample logs into :class:`Pools`."""
    pools = Pools([], [], [], [], [])
    for path in sorted(SAMPLES.rglob("*")):
        if not path.is_file() or path.name in ("truth.json", "README.md"):
            continue
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
        lines = data.decode("utf-8", "replace").splitlines()
        pools.startup.append([line for line in lines[:40] if not _ERRORISH.search(line)])
        i = 40
        while i < len(lines):
            line = lines[i]
            if line.startswith("Traceback (most recent call last):"):
                j = i + 1
                while j < len(lines) and (lines[j].startswith((" ", "\t")) or not lines[j]):
                    j += 1
                pools.tracebacks.append(lines[i : j + 1])
                i = j + 1
                continue
            if _ERRORISH.search(line):
                pools.errors.append(line)
            elif _STEP_LINES.search(line):
                pools.steps.append(line)
            elif line.strip():
                pools.noise.append(line)
            i += 1
    if not pools.steps:
        sys.exit("no sample logs with training steps under sample_logs/: run the lab first")
    # what the pattern library calls an error is an error line here too, wherever it came from
    flagged = set(_error_lines(pools.noise))
    pools.errors += [line for line in pools.noise if line in flagged]
    # mid-run noise is what a long run prints over and over: nothing a rule or the diagnosis looks for
    pools.noise = [line for line in pools.noise if not _any_keyword(line)]
    return pools


def _any_keyword(line: str) -> bool:
    global _KEYWORDS
    if _KEYWORDS is None:
        from analyzer.rules import load_rules
        from analyzer.run import DIAGNOSIS_KEYWORDS

        words = {k for rule in load_rules() for k in rule.keywords} | set(DIAGNOSIS_KEYWORDS)
        _KEYWORDS = [k.lower() for k in words]
    low = line.lower()
    return any(k in low for k in _KEYWORDS)


_KEYWORDS: list[str] | None = None


def _error_lines(lines: list[str]) -> list[str]:
    """The lines the pattern library turns into warning-or-worse, non-benign findings."""
    import pyarrow as pa

    from analyzer.classify import classify
    from analyzer.formats import parse_lines
    from analyzer.rules import load_rules

    table = parse_lines(("\n".join(lines) + "\n").encode()).table
    events = table.to_pandas(types_mapper=None)
    found = classify(events, load_rules()).findings
    bad = found[
        (~found["benign"].astype(bool)) & found["severity"].isin(["warning", "error", "fatal"])
    ]
    rows = bad["row"] if "row" in bad.columns else bad.index
    raw = pa.array(events["raw"]).to_pylist()
    return [raw[i] for i in rows]


def retime(line: str, when: datetime) -> str:
    """Give a real line the time ``when`` in its own format (lines without a time stay as they are)."""
    if _PY_TS.match(line):
        return when.strftime("%Y-%m-%d %H:%M:%S,") + f"{when.microsecond // 1000:03d}" + line[23:]
    m = _ABSL_EPOCH.match(line)
    if m:
        return f"{m[1]}0000 00:00:{when.timestamp():.6f}" + line[m.end() :]
    m = _ABSL.match(line)
    if m:
        return f"{m[1]}{when:%m%d %H:%M:%S.%f}" + line[m.end() :]
    m = _TF_CPP.match(line)
    if m:
        return f"{when:%Y-%m-%d %H:%M:%S.%f}" + line[m.end() :]
    return line


def cluster(nodes: int) -> dict[str, list[str]]:
    workers = max(1, nodes - 2)
    return {
        "chief": ["10.0.0.1:2222"],
        "ps": ["10.0.1.1:2222"],
        "worker": [f"10.0.2.{i + 1}:2222" for i in range(workers)],
    }


def generate(out: Path, size: int, nodes: int, seed: int = 7) -> dict:
    """Write ``nodes`` node logs of about ``size`` bytes in all into ``out``; return a summary.

    Per node: a real start-up block, then training progress (real step lines with the step and
    loss renumbered) mixed with other real mid-run lines, 0.1 % real error lines and a few real
    tracebacks; then the cascade of a lost parameter server (``ps:0`` stops first).
    """
    rng = random.Random(seed)
    pools = read_sample_lines()
    spec = cluster(nodes)
    tasks = [("chief", 0), ("ps", 0)] + [("worker", i) for i in range(len(spec["worker"]))]
    out.mkdir(parents=True, exist_ok=True)
    per_node = size // len(tasks)
    start = datetime(2026, 11, 22, 3, 0, 0, tzinfo=UTC)
    cascade = [e for e in pools.errors if "ps/replica" in e or "UNAVAILABLE" in e] or pools.errors
    total_lines = 0
    for job, index in tasks:
        name = "chief.log" if job == "chief" else f"{job}-{index}.log"
        config = {"cluster": spec, "task": {"type": job, "index": index}}
        when = start + timedelta(milliseconds=rng.randint(0, 2000))
        # ps:0 dies silently at 90 % of the run; everyone else logs the cascade after it
        budget = int(per_node * (0.9 if (job, index) == ("ps", 0) else 1.0))
        step = 0
        with open(out / name, "w", encoding="utf-8") as f:
            chunk = [f"TF_CONFIG={json.dumps(config)}"]
            chunk += [retime(line, when) for line in rng.choice(pools.startup)]
            written = 0
            lines = 0
            while written < budget:
                for _ in range(200):
                    when += timedelta(milliseconds=rng.randint(5, 40))
                    roll = rng.random()
                    if roll < 0.001:
                        chunk.append(retime(rng.choice(pools.errors), when))
                    elif roll < 0.0012 and pools.tracebacks:
                        chunk.extend(rng.choice(pools.tracebacks))
                    elif roll < 0.9 or not pools.noise:
                        step += 1
                        line = _STEP_LINES.sub(
                            f"step {step} loss {rng.uniform(0.01, 3):.4f}", rng.choice(pools.steps)
                        )
                        chunk.append(retime(line, when))
                    else:
                        chunk.append(retime(rng.choice(pools.noise), when))
                text = "\n".join(chunk) + "\n"
                f.write(text)
                written += len(text)
                lines += len(chunk)
                chunk = []
            if (job, index) != ("ps", 0):
                when += timedelta(seconds=2)
                burst = [retime(line, when) for line in rng.sample(cascade, min(12, len(cascade)))]
                f.write("\n".join(burst) + "\n")
                lines += len(burst)
        total_lines += lines
    summary = {
        "nodes": len(tasks),
        "bytes": sum(p.stat().st_size for p in out.iterdir()),
        "lines": total_lines,
    }
    (out.parent / f"{out.name}.json").write_text(json.dumps(summary))
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="100M", help="total size: 100M, 1G, 4G")
    parser.add_argument("--nodes", type=int, default=64)
    parser.add_argument("-o", "--output", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    summary = generate(args.output, size_arg(args.size), args.nodes, args.seed)
    print(
        f"{args.output}: {summary['nodes']} nodes, {summary['bytes'] / 1e6:.0f} MB, {summary['lines']:,} lines"
    )


if __name__ == "__main__":
    main()
