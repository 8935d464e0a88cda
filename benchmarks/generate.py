"""Build a large multi-node benchmark set from real recorded TensorFlow lines, in one of several profiles.

    python benchmarks/generate.py --profile quiet      --size 1G --nodes 64 -o benchmarks/data/quiet-1g
    python benchmarks/generate.py --profile noisy      --size 1G --nodes 64 -o benchmarks/data/noisy-1g
    python benchmarks/generate.py --profile storm      --size 1G --nodes 64 -o benchmarks/data/storm-1g
    python benchmarks/generate.py --profile tiny-files --files 5000        -o benchmarks/data/tiny-files
    python benchmarks/generate.py --profile huge-line  --size 1G --nodes 64 -o benchmarks/data/huge-line-1g

Every line comes from real recorded output, re-timed so that each node's log runs forward in
time (and with step numbers, ports and object addresses varied where real logs vary them). The
lines are drawn from ``benchmarks/pools.json.gz``, which ``--rebuild-pools`` sorts out of the
committed corpus (``sample_logs/``, ``tests/corpus/lab/``, ``tests/data/``, and the
timestamped lines of ``tests/corpus/excerpts/``, which are real public issue threads). The pools
are frozen so that the benchmark input does not move when the pattern library changes;
``tests/test_benchmarks.py`` checks that every pooled line occurs verbatim in the corpus.

Profiles:

``quiet``
    The old baseline (byte-identical to the generator before profiles, for the same seed):
    training progress and other mid-run chatter, 0.1 % real error lines, a few tracebacks.
``noisy``
    ``quiet`` plus about a quarter of all lines repeated warnings real TensorFlow prints over
    and over (``Local rendezvous is aborting with status: OUT_OF_RANGE``, ``StartAbort Out of
    range: End of sequence``, retracing warnings, ``Started server with target``,
    ``CreateSession still waiting``, slow-callback warnings) and other harmless lines that hit
    the pattern library's keywords. Each node repeats a few of each kind, as one process does.
``storm``
    Most lines are errors as a crash loop writes them: each node restarts over and over, logs a
    few start-up lines and steps, then a burst of real connection errors (UNAVAILABLE, Socket
    closed, Connection refused) and a real traceback.
``tiny-files``
    ``--files`` files (default 5,000) of a few lines each, one node per file, as Slurm or
    per-process logs come; ``--size`` and ``--nodes`` are ignored.
``huge-line``
    ``quiet`` plus one line of about ``--huge-mb`` MB (default 100: the body of the longest real
    non-error line of the pool, repeated within one line) in one node's log, and three lines of
    a few MB (the longest real gRPC error line, its body repeated) in three others.

Every profile ends in a real fault cascade: ``ps:0`` goes silent (its log stops at 90 % of its
budget), then every other node logs the errors a lost parameter server causes. ``DIR/truth.json``
says what was generated (profile, files, bytes, lines, error and repeated-warning shares).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import sys
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing
SAMPLES = ROOT / "sample_logs"
POOLS_FILE = Path(__file__).resolve().parent / "pools.json.gz"
#: where the pools come from (read by ``--rebuild-pools`` only)
CORPUS_DIRS = ("sample_logs", "tests/corpus/lab", "tests/data", "tests/corpus/excerpts")
PROFILES = ("quiet", "noisy", "storm", "tiny-files", "huge-line")

_PY_TS = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}")
_ABSL_EPOCH = re.compile(r"^([IWEF])0000 00:00:\d+\.\d+")
_ABSL = re.compile(r"^([IWEF])\d{4} \d\d:\d\d:\d\d\.\d+")
_TF_CPP = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+")
_ERRORISH = re.compile(
    r"Error|ERROR|UNAVAILABLE|Unavailable|failed|Traceback|refused|Socket closed|reset by peer|"
    r"Deadline|DEADLINE|aborted|Aborted|exception|Killed",
)
_STEP_LINES = re.compile(r"\bstep \d+(?:/\d+)? loss [\d.]+")
#: a W-level line in one of TensorFlow's formats
_W_LEVEL = re.compile(
    r"^W\d{4} |^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: W |^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} - WARNING - "
    r"|^WARNING:(?:tensorflow|absl):"
)
#: a line of an excerpt that starts the way a log line does (not Markdown, quoting or prose)
_LOG_START = re.compile(
    r"^(?:[IWEF]\d{4} \d\d:\d\d:\d+\.\d+|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[.,]\d+|WARNING:tensorflow:)"
)

#: the repeated-warning kinds of ``noisy``: name -> what a line of that kind contains
WARNING_KINDS = {
    "rendezvous_aborting": re.compile(
        r"Local rendezvous is aborting with status: (?:OUT_OF_RANGE|CANCELLED|ABORTED: Cleanup)"
    ),
    "end_of_sequence": re.compile(r"StartAbort Out of range: End of sequence"),
    "retracing": re.compile(r"triggered tf\.function retracing"),
    "started_server": re.compile(r"Started server with target"),
    "createsession_waiting": re.compile(r"CreateSession still waiting for response from worker"),
    "slow_callback": re.compile(r"is slow compared to the batch time"),
}
#: the error lines of ``storm``'s bursts
_STORM_ERROR = re.compile(
    r"UNAVAILABLE|UnavailableError|Socket closed|Connection refused|failed to connect|"
    r"Connection reset|DEADLINE_EXCEEDED|Deadline Exceeded"
)
#: numbers that vary from line to line in real logs
_PORT = re.compile(r"(?<=127\.0\.0\.1:)\d{4,5}\b")
_HEX = re.compile(r"\b0x[0-9a-f]{6,16}\b")
_CALLS = re.compile(r"\b(\d+) out of the last (\d+) calls\b")
_STEP = re.compile(r"\b([Ss]tep:? )(\d+)\b")


def size_arg(text: str) -> int:
    """``100M``, ``1G``, ``4G`` → bytes."""
    units = {"K": 1024, "M": 1024**2, "G": 1024**3}
    text = text.strip().upper()
    if text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


@dataclass
class Pools:
    """Real lines, sorted by the part of a run they come from and by what they are."""

    #: the first lines of each sample node log (TF_CONFIG, versions, server start)
    startup: list[list[str]]
    steps: list[str]  #: training progress lines (``step 2 loss 39.9``)
    noise: list[str]  #: other mid-run lines that are not errors and hit no keyword
    errors: list[str]
    tracebacks: list[list[str]]
    #: ``noisy``: kind -> real lines of that kind (see :data:`WARNING_KINDS`, and ``keyword_hits``)
    warnings: dict[str, list[str]] = field(default_factory=dict)
    storm_errors: list[str] = field(default_factory=list)  #: ``storm``: real connection errors
    storm_tracebacks: list[list[str]] = field(default_factory=list)  #: all corpus tracebacks
    huge_payload: str = ""  #: ``huge-line``: the longest non-error line
    huge_error: str = ""  #: ``huge-line``: the longest connection error line


def _corpus_files(dirs=("sample_logs",)):
    for d in dirs:
        for path in sorted((ROOT / d).rglob("*")):
            if not path.is_file() or path.name in ("truth.json", "README.md", "protocol.json"):
                continue
            if path.suffix in (".py", ".csv", ".md", ".json"):
                continue
            data = path.read_bytes()
            if path.suffix == ".gz":
                data = gzip.decompress(data)
            yield path, data.decode("utf-8", "replace").splitlines()


def _tracebacks(lines: list[str], begin: int = 0):
    """(start, end) of each Python traceback from line ``begin`` on: the header, the indented
    frames, the exception line."""
    i = begin
    while i < len(lines):
        if lines[i].startswith("Traceback (most recent call last):"):
            j = i + 1
            while j < len(lines) and (lines[j].startswith((" ", "\t")) or not lines[j]):
                j += 1
            yield i, j + 1
            i = j + 1
        else:
            i += 1


def read_sample_lines() -> Pools:
    """Sort every line of the sample logs into the ``quiet`` part of :class:`Pools` (analyzer needed)."""
    pools = Pools([], [], [], [], [])
    for _path, lines in _corpus_files():
        pools.startup.append([line for line in lines[:40] if not _ERRORISH.search(line)])
        spans = dict(_tracebacks(lines, 40))
        i = 40
        while i < len(lines):
            line = lines[i]
            if i in spans:
                pools.tracebacks.append(lines[i : spans[i]])
                i = spans[i]
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


def build_pools() -> Pools:
    """All pools from the corpus (imports the analyzer: run by ``--rebuild-pools`` only)."""
    pools = read_sample_lines()
    corpus: list[tuple[Path, list[str]]] = list(_corpus_files(CORPUS_DIRS))
    singles: list[str] = []
    for path, lines in corpus:
        excerpt = "excerpts" in path.parts
        inside = set()
        for start, end in _tracebacks(lines):
            block = lines[start:end]
            inside.update(range(start, end))
            if not excerpt and block not in pools.storm_tracebacks:
                pools.storm_tracebacks.append(block)
        for k, line in enumerate(lines):
            if k in inside or not line.strip():
                continue
            if excerpt and not _LOG_START.match(line):
                continue
            singles.append(line)
    singles = list(dict.fromkeys(singles))  # distinct, in corpus order
    warnings: dict[str, list[str]] = {kind: [] for kind in WARNING_KINDS}
    for line in singles:
        if not _LOG_START.match(line):
            continue  # repeated lines carry their own time, so that they can be re-timed
        for kind, pattern in WARNING_KINDS.items():
            if pattern.search(line):
                warnings[kind].append(line)
                break
    # other harmless W-level lines that hit a keyword of the library: a rule looks at each one
    bad = set(_error_lines(singles))
    named = {line for lines in warnings.values() for line in lines}
    warnings["keyword_hits"] = [
        line
        for line in singles
        if line not in named and line not in bad and _W_LEVEL.match(line) and _any_keyword(line)
    ]
    pools.warnings = {kind: lines for kind, lines in warnings.items() if lines}
    pools.storm_errors = [line for line in singles if _STORM_ERROR.search(line)]
    pools.huge_payload = max(pools.noise, key=len)
    pools.huge_error = max(pools.storm_errors, key=len)
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


def load_pools(path: Path = POOLS_FILE) -> Pools:
    """The frozen pools (``--rebuild-pools`` writes them)."""
    if not path.exists():
        sys.exit(f"{path} is missing: run  python benchmarks/generate.py --rebuild-pools")
    return Pools(**json.loads(gzip.decompress(path.read_bytes())))


def write_pools(pools: Pools, path: Path = POOLS_FILE) -> None:
    text = json.dumps(asdict(pools), ensure_ascii=False, indent=0, sort_keys=True)
    path.write_bytes(gzip.compress(text.encode(), mtime=0))


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


_NO_TIME, _PY, _EPOCH, _ABSL_K, _CPP = range(5)


class Retimer:
    """:func:`retime`, same output, faster: the format of each pool line and the text of each
    second are cached (a line is re-timed every few milliseconds, so a second's text is reused)."""

    def __init__(self) -> None:
        self.kinds: dict[str, tuple[int, int, str]] = {}
        self.key: datetime | None = None
        self.texts: tuple[str, str, str] = ("", "", "")

    @staticmethod
    def kind(line: str) -> tuple[int, int, str]:
        if _PY_TS.match(line):
            return _PY, 23, ""
        for kind, pattern in ((_EPOCH, _ABSL_EPOCH), (_ABSL_K, _ABSL)):
            m = pattern.match(line)
            if m:
                return kind, m.end(), m[1]
        m = _TF_CPP.match(line)
        return (_CPP, m.end(), "") if m else (_NO_TIME, 0, "")

    def __call__(self, line: str, when: datetime) -> str:
        k = self.kinds.get(line)
        if k is None:
            k = self.kind(line)
            if len(self.kinds) < 100_000:  # the pool lines; varied lines are not worth keeping
                self.kinds[line] = k
        kind, end, letter = k
        if kind == _NO_TIME:
            return line
        if kind == _EPOCH:
            return f"{letter}0000 00:00:{when.timestamp():.6f}" + line[end:]
        key = when.replace(microsecond=0)
        if key != self.key:
            self.key = key
            self.texts = (
                when.strftime("%Y-%m-%d %H:%M:%S,"),
                f"{when:%m%d %H:%M:%S}.",
                f"{when:%Y-%m-%d %H:%M:%S}.",
            )
        us = when.microsecond
        if kind == _PY:
            return self.texts[0] + f"{us // 1000:03d}" + line[end:]
        if kind == _ABSL_K:
            return letter + self.texts[1] + f"{us:06d}" + line[end:]
        return self.texts[2] + f"{us:06d}" + line[end:]


class StepLines:
    """``_STEP_LINES.sub(text, line)``, same output, with each pool line split once."""

    def __init__(self) -> None:
        self.parts: dict[str, list[str]] = {}

    def __call__(self, text: str, line: str) -> str:
        parts = self.parts.get(line)
        if parts is None:
            parts = self.parts[line] = _STEP_LINES.split(line)
        return text.join(parts)


class Varier:
    """Vary the numbers real logs vary between repeats of a line: ports, addresses, call counts, steps."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.step = 0

    def __call__(self, line: str) -> str:
        rng = self.rng
        if "127.0.0.1:" in line:
            port = str(rng.randint(32768, 60999))
            line = _PORT.sub(port, line)
        if "0x" in line:
            line = _HEX.sub(lambda m: "0x" + f"{rng.getrandbits(64):016x}"[: len(m[0]) - 2], line)
        if "out of the last" in line:
            n = rng.randint(5, 12)
            line = _CALLS.sub(f"{n} out of the last {n + rng.randint(0, 3)} calls", line)
        if "tep" in line:
            self.step += rng.randint(1, 10)
            line = _STEP.sub(lambda m: f"{m[1]}{self.step}", line)
        return line


def cluster(nodes: int) -> dict[str, list[str]]:
    workers = max(1, nodes - 2)
    return {
        "chief": ["10.0.0.1:2222"],
        "ps": ["10.0.1.1:2222"],
        "worker": [f"10.0.2.{i + 1}:2222" for i in range(workers)],
    }


def _tasks(nodes: int) -> tuple[dict[str, list[str]], list[tuple[str, int]]]:
    spec = cluster(nodes)
    return spec, [("chief", 0), ("ps", 0)] + [("worker", i) for i in range(len(spec["worker"]))]


def _file_name(job: str, index: int) -> str:
    return "chief.log" if job == "chief" else f"{job}-{index}.log"


@dataclass
class Counts:
    lines: int = 0
    error_lines: int = 0  #: error lines, traceback lines and cascade lines written
    warning_lines: int = 0  #: repeated-warning lines written (``noisy``)


def _cascade(pools: Pools) -> list[str]:
    return [e for e in pools.errors if "ps/replica" in e or "UNAVAILABLE" in e] or pools.errors


def _plan(out: Path, size: int, nodes: int, seed: int, pools: Pools):
    """What every multi-node profile starts from: its random draws, the cluster, the bytes per
    node, the start time, the cascade lines and empty counts (the folder made)."""
    rng = random.Random(seed)
    spec, tasks = _tasks(nodes)
    out.mkdir(parents=True, exist_ok=True)
    start = datetime(2026, 11, 22, 3, 0, 0, tzinfo=UTC)
    return rng, spec, tasks, size // len(tasks), start, _cascade(pools), Counts()


def _write_cascade(f, rng: random.Random, retime, cascade: list[str], when, counts: Counts):
    """The end of a node's log in every profile: a burst of the lost-``ps:0`` cascade's lines."""
    burst = [retime(line, when) for line in rng.sample(cascade, min(12, len(cascade)))]
    f.write("\n".join(burst) + "\n")
    counts.lines += len(burst)
    counts.error_lines += len(burst)


def generate_quiet(
    out: Path, size: int, nodes: int, seed: int, pools: Pools, noisy: float = 0.0
) -> Counts:
    """Per node: a real start-up block, then training progress (real step lines with the step and
    loss renumbered) mixed with other real mid-run lines, 0.1 % real error lines and a few real
    tracebacks; then the cascade of a lost parameter server (``ps:0`` stops first).

    With ``noisy`` > 0, that share of the lines are repeated warnings instead (``noisy`` profile);
    at 0 the random draws, and so the output, are those of the generator before profiles.
    """
    rng, spec, tasks, per_node, start, cascade, counts = _plan(out, size, nodes, seed, pools)
    kinds = sorted(pools.warnings)
    retime, step_line = Retimer(), StepLines()
    for job, index in tasks:
        name = _file_name(job, index)
        config = {"cluster": spec, "task": {"type": job, "index": index}}
        when = start + timedelta(milliseconds=rng.randint(0, 2000))
        # ps:0 dies silently at 90 % of the run; everyone else logs the cascade after it
        budget = int(per_node * (0.9 if (job, index) == ("ps", 0) else 1.0))
        step = 0
        if noisy:
            # one process repeats the same few lines of each kind over and over
            vrng = random.Random(f"{seed}-{name}")
            vary = Varier(vrng)
            mine = [vrng.sample(pools.warnings[k], min(3, len(pools.warnings[k]))) for k in kinds]
        with open(out / name, "w", encoding="utf-8", buffering=1 << 20) as f:
            chunk = [f"TF_CONFIG={json.dumps(config)}"]
            chunk += [retime(line, when) for line in rng.choice(pools.startup)]
            written = 0
            while written < budget:
                for _ in range(200):
                    when += timedelta(milliseconds=rng.randint(5, 40))
                    if noisy and vrng.random() < noisy:
                        lines = vrng.choice(mine)
                        chunk.append(retime(vary(vrng.choice(lines)), when))
                        counts.warning_lines += 1
                        continue
                    roll = rng.random()
                    if roll < 0.001:
                        chunk.append(retime(rng.choice(pools.errors), when))
                        counts.error_lines += 1
                    elif roll < 0.0012 and pools.tracebacks:
                        tb = rng.choice(pools.tracebacks)
                        chunk.extend(tb)
                        counts.error_lines += len(tb)
                    elif roll < 0.9 or not pools.noise:
                        step += 1
                        line = step_line(
                            f"step {step} loss {rng.uniform(0.01, 3):.4f}", rng.choice(pools.steps)
                        )
                        chunk.append(retime(line, when))
                    else:
                        chunk.append(retime(rng.choice(pools.noise), when))
                text = "\n".join(chunk) + "\n"
                f.write(text)
                written += len(text)
                counts.lines += len(chunk)
                chunk = []
            if (job, index) != ("ps", 0):
                _write_cascade(f, rng, retime, cascade, when + timedelta(seconds=2), counts)
    return counts


def generate_storm(out: Path, size: int, nodes: int, seed: int, pools: Pools) -> Counts:
    """Per node, a crash loop until the budget: a few start-up lines and steps, then a burst of
    real connection errors (a retry loop logs the same few again and again, ports varying), then
    a real traceback; the process restarts. Then the lost-``ps:0`` cascade, as every profile."""
    rng, spec, tasks, per_node, start, cascade, counts = _plan(out, size, nodes, seed, pools)
    retime, step_line = Retimer(), StepLines()
    for job, index in tasks:
        name = _file_name(job, index)
        config = {"cluster": spec, "task": {"type": job, "index": index}}
        when = start + timedelta(milliseconds=rng.randint(0, 2000))
        budget = int(per_node * (0.9 if (job, index) == ("ps", 0) else 1.0))
        vary = Varier(rng)
        startup = [x for x in rng.choice(pools.startup) if x.strip() and not x.startswith("TF_")]
        errors = rng.sample(pools.storm_errors, min(6, len(pools.storm_errors)))
        tracebacks = rng.sample(pools.storm_tracebacks, min(3, len(pools.storm_tracebacks)))
        with open(out / name, "w", encoding="utf-8", buffering=1 << 20) as f:
            written = 0
            while written < budget:
                chunk = [f"TF_CONFIG={json.dumps(config)}"]
                for line in startup[: rng.randint(2, 6)]:
                    when += timedelta(milliseconds=rng.randint(1, 50))
                    chunk.append(retime(vary(line), when))
                for _ in range(rng.randint(0, 4)):
                    when += timedelta(milliseconds=rng.randint(20, 200))
                    vary.step += 1
                    line = step_line(
                        f"step {vary.step} loss {rng.uniform(0.01, 3):.4f}",
                        rng.choice(pools.steps),
                    )
                    chunk.append(retime(line, when))
                quiet = len(chunk)
                for _ in range(rng.randint(10, 60)):
                    when += timedelta(milliseconds=rng.randint(50, 1000))
                    chunk.append(retime(vary(rng.choice(errors)), when))
                when += timedelta(milliseconds=rng.randint(1, 100))
                chunk.extend(vary(line) for line in rng.choice(tracebacks))
                when += timedelta(seconds=rng.randint(1, 30))  # the restart
                text = "\n".join(chunk) + "\n"
                f.write(text)
                written += len(text)
                counts.lines += len(chunk)
                counts.error_lines += len(chunk) - quiet
            if (job, index) != ("ps", 0):
                _write_cascade(f, rng, retime, cascade, when + timedelta(seconds=2), counts)
    return counts


def generate_tiny(out: Path, files: int, seed: int, pools: Pools) -> Counts:
    """``files`` node logs of a few lines each (2-3 start-up lines, 1-4 steps), one node per file;
    every node but ``ps:0`` ends with 1-2 lines of the lost-``ps:0`` cascade."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    tasks = [("chief", 0), ("ps", 0)] + [("worker", i) for i in range(max(1, files - 2))]
    start = datetime(2026, 11, 22, 3, 0, 0, tzinfo=UTC)
    cascade = _cascade(pools)
    starts = [[x for x in b if x.strip() and not x.startswith("TF_")] for b in pools.startup]
    starts = [block for block in starts if len(block) >= 3]
    cascade = [line for line in cascade if _LOG_START.match(line)] or cascade  # timed lines
    counts = Counts()
    for job, index in tasks:
        when = start + timedelta(milliseconds=rng.randint(0, 2000))
        lines = []
        for line in rng.choice(starts)[: rng.randint(2, 3)]:
            when += timedelta(milliseconds=rng.randint(1, 50))
            lines.append(retime(line, when))
        for step in range(1, rng.randint(2, 5)):
            when += timedelta(milliseconds=rng.randint(100, 400))
            line = _STEP_LINES.sub(
                f"step {step} loss {rng.uniform(0.01, 3):.4f}", rng.choice(pools.steps)
            )
            lines.append(retime(line, when))
        if (job, index) != ("ps", 0):
            when = start + timedelta(seconds=5, milliseconds=rng.randint(0, 500))
            burst = [retime(line, when) for line in rng.sample(cascade, rng.randint(1, 2))]
            lines += burst
            counts.error_lines += len(burst)
        (out / _file_name(job, index)).write_text("\n".join(lines) + "\n", encoding="utf-8")
        counts.lines += len(lines)
    return counts


def _insert_line(path: Path, line: str, at: float) -> None:
    """Insert ``line`` into the log ``path`` after the line that ends near ``at`` of its bytes,
    re-timed to the time of the last timed line before it (so that the log stays in order)."""
    data = path.read_bytes()
    cut = data.find(b"\n", int(len(data) * at)) + 1 or len(data)
    before = data[max(0, cut - 100_000) : cut].decode("utf-8", "replace").splitlines()
    for previous in reversed(before[1:]):
        when = _time_of(previous)
        if when:
            line = retime(line, when)
            break
    with open(path, "wb") as f:
        f.write(data[:cut])
        f.write(line.encode() + b"\n")
        f.write(data[cut:])


def _time_of(line: str) -> datetime | None:
    """The time of a line this generator re-timed (UTC; the year of the ``MMDD`` absl form: 2026)."""
    if m := _PY_TS.match(line):
        return datetime.strptime(m[0], "%Y-%m-%d %H:%M:%S,%f").replace(tzinfo=UTC)
    if m := _ABSL_EPOCH.match(line):
        return datetime.fromtimestamp(float(m[0].rsplit(":", 1)[1]), UTC)
    if m := _ABSL.match(line):
        return datetime.strptime("2026" + m[0][1:], "%Y%m%d %H:%M:%S.%f").replace(tzinfo=UTC)
    if m := _TF_CPP.match(line):
        return datetime.strptime(m[0], "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=UTC)
    return None


def _repeat_body(line: str, size: int) -> str:
    """``line`` grown to about ``size`` bytes: its prefix once, then its body repeated in one line."""
    m = None
    for pattern in (_PY_TS, _ABSL_EPOCH, _ABSL, _TF_CPP):
        m = m or pattern.match(line)
    head = line[: m.end()] if m else ""
    body = line[len(head) :]
    return head + body * max(1, (size - len(head)) // max(1, len(body)))


def generate_huge(
    out: Path, size: int, nodes: int, seed: int, pools: Pools, huge_mb: float
) -> tuple[Counts, int]:
    """``quiet`` of ``size`` less the long lines, then one line of ``huge_mb`` MB in ``worker-0``
    at half its length and three lines of ``huge_mb / 25`` MB in ``worker-1..3``."""
    big = int(huge_mb * 1e6)
    few = [int(big / 25)] * 3
    counts = generate_quiet(out, max(size - big - sum(few), nodes * 4096), nodes, seed, pools)
    _, tasks = _tasks(nodes)
    workers = [_file_name(j, i) for j, i in tasks if j == "worker"]
    huge = _repeat_body(pools.huge_payload, big)
    _insert_line(out / workers[0], huge, 0.5)
    for name, n in zip(workers[1:4], few, strict=False):
        _insert_line(out / name, _repeat_body(pools.huge_error, n), 0.3)
        counts.error_lines += 1
        counts.lines += 1
    counts.lines += 1
    return counts, len(huge.encode())


def generate(
    out: Path,
    size: int,
    nodes: int,
    seed: int = 7,
    profile: str = "quiet",
    files: int = 5000,
    huge_mb: float = 100.0,
    pools: Pools | None = None,
) -> dict:
    """Write one profile into ``out`` and ``out/truth.json``; return the summary written there."""
    pools = pools or load_pools()
    longest = None
    if profile == "quiet":
        counts = generate_quiet(out, size, nodes, seed, pools)
    elif profile == "noisy":
        counts = generate_quiet(out, size, nodes, seed, pools, noisy=0.25)
    elif profile == "storm":
        counts = generate_storm(out, size, nodes, seed, pools)
    elif profile == "tiny-files":
        counts = generate_tiny(out, files, seed, pools)
    elif profile == "huge-line":
        counts, longest = generate_huge(out, size, nodes, seed, pools, huge_mb)
    else:
        raise ValueError(f"unknown profile {profile!r}: one of {', '.join(PROFILES)}")
    logs = sorted(p for p in out.iterdir() if p.is_file() and p.name != "truth.json")
    summary = {
        "profile": profile,
        "seed": seed,
        "nodes": len(logs),
        "files": len(logs),
        "bytes": sum(p.stat().st_size for p in logs),
        "lines": counts.lines,
        "error_lines": counts.error_lines,
        "error_share": round(counts.error_lines / max(1, counts.lines), 4),
        "repeated_warning_lines": counts.warning_lines,
        "repeated_warning_share": round(counts.warning_lines / max(1, counts.lines), 4),
        "longest_line_bytes": longest,
        "cascade": {
            "silent_first": "ps:0",
            "then": "every other node logs the real errors of a lost parameter server",
        },
        "lines_from": "benchmarks/pools.json.gz (real lines of " + ", ".join(CORPUS_DIRS) + ")",
    }
    (out / "truth.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="quiet", choices=PROFILES)
    parser.add_argument("--size", default="100M", help="total size: 100M, 1G, 4G")
    parser.add_argument("--nodes", type=int, default=64)
    parser.add_argument("--files", type=int, default=5000, help="tiny-files: how many files")
    parser.add_argument("--huge-mb", type=float, default=100.0, help="huge-line: its size in MB")
    parser.add_argument("-o", "--output", type=Path)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--rebuild-pools",
        action="store_true",
        help=f"re-sort the corpus into {POOLS_FILE.name} (uses the analyzer) and exit",
    )
    args = parser.parse_args()
    if args.rebuild_pools:
        pools = build_pools()
        write_pools(pools)
        sizes = {k: len(v) for k, v in asdict(pools).items() if isinstance(v, list)}
        print(
            f"{POOLS_FILE}: {sizes}, warnings { ({k: len(v) for k, v in pools.warnings.items()}) }"
        )
        return
    if args.output is None:
        parser.error("-o/--output is required")
    if args.nodes < 3 and args.profile != "tiny-files":
        parser.error("--nodes must be 3 or more (chief, ps:0 and a worker)")
    s = generate(
        args.output,
        size_arg(args.size),
        args.nodes,
        args.seed,
        args.profile,
        args.files,
        args.huge_mb,
    )
    print(
        f"{args.output}: {args.profile}, {s['files']:,} files, {s['bytes'] / 1e6:,.0f} MB, "
        f"{s['lines']:,} lines, {s['error_share']:.1%} error lines, "
        f"{s['repeated_warning_share']:.1%} repeated warnings"
    )


if __name__ == "__main__":
    main()
