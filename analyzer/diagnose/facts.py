"""Step 1, node facts: what one node's own log tells (times, ending, exit, versions, spec)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from analyzer.diagnose.common import (
    _KILLED_RE,
    CLEAN_LOOKBACK,
    TAIL_EVENTS,
    _Columns,
    _contains,
    _missing,
    _records,
    _search,
    _text,
)
from analyzer.diagnose.phases import PHASES
from analyzer.identity import hint_from_name

if TYPE_CHECKING:
    from analyzer.ingest import Ingest


_CLEAN_RE = re.compile(
    r"shutting down|shut down|training (?:finished|complete)|finished after|job finished"
    r"|exiting (?:cleanly|normally)|exit(?:ed)? with (?:code|status) 0\b|goodbye|all done"
    r"|successfully (?:finished|completed)|stopping (?:the )?(?:cluster|workers|server)"
    r"|\sdone\.?\s*$"  # "worker 0 done": a message that ends on "done"
    # TF's PreemptionCheckpointHandler exits on purpose once its checkpoint is saved
    # (failure_handling.py): an orderly end, whoever was preempted
    r"|checkpoint saved\. Exiting"
    r"|\.service: Deactivated successfully",  # systemd: the unit's process ended with success
    re.I,
)


_EXIT_RE = re.compile(
    r"(?P<text>(?i:exit(?:ed)?(?: with)? (?:code|status)[\s=:]*-?\d+|returncode[\s=:]*-?\d+)"
    r"|\bKilled\b|Segmentation fault(?: \(core dumped\))?|^Aborted(?: \(core dumped\))?"
    r"|terminate called[^\n]{0,80}|(?i:(?:received|caught|got) signal[\s:]*\w+)"
    r"|SIG(?:KILL|TERM|SEGV|ABRT|INT|BUS)\b"
    # systemd about the unit: its main process's end, a stop job (src/core/service.c, job.c)
    r"|Main process exited, code=\w+, status=[1-9]\d*/\w+|\bStopp(?:ing|ed) [\w@.:-]+\.service)"
)


#: Lower-case words one of which every match of the pattern above contains (ASCII text).
_CLEAN_WORDS = ("shut", "finish", "complet", "exit", "goodbye", "done", "stopping", "deactivated")
_EXIT_WORDS = (
    "exit",
    "returncode",
    "killed",
    "segmentation fault",
    "abort",
    "terminate",
    "sig",
    "stopp",
)
_FACTS_PREFILTER = r"(?i)version|python \d|protobuf|grpcio|grpc[ =:]+v?\d|TF_CONFIG|cluster.?spec"
MAX_FACT_ROWS = 20000
#: Lines of work (a training step, a checkpoint): a log whose last word is one has not ended.
#: Searched in a line's first ``WORK_TEXT`` characters (a step line is short; ``\d+/\d+``
#: over a megabyte of digits would take Python's regex engine quadratic time).
WORK_TEXT = 1000
_WORK_RE = re.compile("|".join(p for name, p in PHASES if name in ("training", "checkpoint")))
_DIGITS_RE = re.compile(r"\d+")
_VERSION_RES = {
    "tensorflow": re.compile(
        r"(?:tf\.__version__|tensorflow(?:[ _-]version)?|TensorFlow version)\s*[=:]*\s*v?"
        r"(\d+\.\d+(?:\.\d+)?(?:-?rc\d+|[.-]?dev\d+|\.post\d+)?(?:\+[\w.]+)?)",
        re.I,
    ),
    "python": re.compile(r"\bpython(?: version)?[\s:=]+v?(\d+\.\d+(?:\.\d+)?)", re.I),
    "protobuf": re.compile(r"protobuf(?: version)?[\s:=]+v?(\d+\.\d+[\w.]*)", re.I),
    "grpc": re.compile(r"grpc(?:io)?(?: version)?[\s:=]+v?(\d+\.\d+[\w.]*)", re.I),
}


@dataclass
class Facts:
    """What one node's own log tells, before any cross-node reasoning."""

    node: str
    files: list[str] = field(default_factory=list)
    lines: int = 0
    first_time: pd.Timestamp | None = None
    last_time: pd.Timestamp | None = None
    last_line: dict | None = None  #: the last event (time, file, line_no, message)
    ending: str = "no log"
    exit_info: str | None = None
    exit_line: dict | None = None
    versions: dict[str, str] = field(default_factory=dict)
    version_lines: dict[str, dict] = field(default_factory=dict)
    cluster: dict[str, list[str]] | None = None
    tf_config_line: dict | None = None
    address: str | None = None
    task: dict | None = None  #: TF_CONFIG's own task entry
    task_source: str = "TF_CONFIG"  #: what said it (``DTENSOR_*`` for DTensor's variables)
    missing: bool = False
    twins: list[str] = field(default_factory=list)  #: different logs that all say they are it
    rank: int | None = None  #: its rank as Slurm's srun set it (``SLURM_PROCID``), if printed
    aliases: list[str] = field(default_factory=list)  #: a launcher's names of its process
    copy_of: str | None = None  #: a launcher's copy of this task's own log (a job-level log)
    tail_rows: list = field(default_factory=list)  #: timeline rows of its last events, in order
    uncaught: bool = False  #: the log ends with a Python traceback
    #: (C++ source file, message template) → the source line it was logged from: the same
    #: message from another line means another build of TensorFlow
    source_lines: dict[tuple[str, str], str] = field(default_factory=dict)


def _event(row: Any) -> dict:
    return {
        "ts": row.ts,
        "file": getattr(row, "file", None),
        "line_no": getattr(row, "line_no", None),
        "message": getattr(row, "message", None),
    }


def _ending_of(tail: pd.DataFrame | list) -> tuple[str, str | None, dict | None]:
    """How a log ends, from its last few events (a frame, or its :func:`_records`):
    (ending, exit info, the exit line)."""
    rows = _records(tail) if isinstance(tail, pd.DataFrame) else tail
    exit_info = exit_line = None
    for row in rows:
        m = _search(_EXIT_RE, _EXIT_WORDS, _text(row.message))
        if m:
            exit_info, exit_line = m["text"], _event(row)
    if exit_info and _KILLED_RE.search(exit_info):
        return "killed", exit_info, exit_line
    progress = 0
    for row in reversed(rows):
        if _search(_CLEAN_RE, _CLEAN_WORDS, _text(row.message)):
            return "clean", exit_info, exit_line
        level = _text(getattr(row, "level", None)).upper()
        if getattr(row, "benign", None) is True:
            continue  # a harmless error line (no GPU on a CPU host) says nothing of the end
        if level in ("ERROR", "FATAL", "CRITICAL") or _text(getattr(row, "format", None)) in (
            "python_traceback",
            "cpp_stacktrace",
        ):
            return "exception", exit_info, exit_line
        if level in ("INFO", "DEBUG"):
            if _WORK_RE.search(_text(row.message)[:WORK_TEXT]):
                break  # a step or a checkpoint after the goodbye: the goodbye was not the end
            progress += 1
            if progress >= CLEAN_LOOKBACK:  # ordinary progress was the last word
                break
        # level-less continuation lines, warnings, a short teardown: look further back
    return "mid-run", exit_info, exit_line


def _fact_rows(timeline: pd.DataFrame) -> pd.DataFrame:
    """The few rows that may print versions or a TF_CONFIG: one vectorized regex pass."""
    hit = _contains(timeline["message"], _FACTS_PREFILTER)
    rows = timeline.loc[hit, ["ts", "node", "file", "line_no", "message"]]
    return rows.head(MAX_FACT_ROWS)


def _scan_versions(rows: pd.DataFrame) -> dict[str, tuple[dict[str, str], dict[str, dict]]]:
    """Versions each node printed (first mention of each), with the line that printed it."""
    out: dict[str, tuple[dict[str, str], dict[str, dict]]] = {}
    for row in _records(rows):
        versions, lines = out.setdefault(str(row.node), ({}, {}))
        for name, rx in _VERSION_RES.items():
            if name in versions:
                continue
            m = rx.search(_text(row.message))
            if m:
                versions[name] = m.group(1).rstrip(".,;")
                lines[name] = _event(row)
    return out


def _tf_config_lines(rows: pd.DataFrame) -> dict[str, dict]:
    """The first line of each node that prints its TF_CONFIG / cluster spec."""
    hit = rows["message"].str.contains("TF_CONFIG|cluster.?spec", regex=True).fillna(False)
    first = rows[hit.astype(bool).to_numpy()].drop_duplicates("node", keep="first")
    return {str(r.node): _event(r) for r in _records(first)}


def _tails(timeline: pd.DataFrame, ts: pd.Series, codes: np.ndarray) -> dict[str, tuple]:
    """The last ``TAIL_EVENTS`` events of each node (positions found with numpy, rows taken):
    node → (their index labels, their :func:`_records`), nodes in order of first appearance."""
    last = np.sort(_last_per_group(codes, TAIL_EVENTS))
    cols = ("node", "file", "line_no", "level", "format", "message", "benign")
    cols = [c for c in cols if c in timeline]
    tails = timeline[cols].iloc[last]
    rows = _records(tails.assign(ts=ts.iloc[last].array))
    groups: dict[str, tuple[list, list]] = {}
    for label, row in zip(tails.index.tolist(), rows, strict=True):
        if _missing(row.node):
            continue
        node = str(row.node)
        labels, own = groups.setdefault(node, ([], []))
        labels.append(label)
        own.append(row._replace(node=node))
    return groups


def _last_per_group(codes: np.ndarray, n: int) -> np.ndarray:
    """Positions of the last ``n`` rows of each code (``groupby(codes).tail(n)``, unordered).

    Only a suffix of the rows is sorted: the shortest (of growing ones) that holds each
    code's last ``n`` rows (all of them for a code with fewer).
    """
    if not len(codes):
        return np.zeros(0, dtype=np.int64)
    shifted = codes.astype(np.int64) + 1  # code -1 (missing) is a group too
    need = np.minimum(np.bincount(shifted), n)
    size = min(len(shifted), max(4 * n * len(need), 4096))
    while True:
        block = shifted[len(shifted) - size :]
        have = np.bincount(block, minlength=len(need))
        if size == len(shifted) or np.all(have >= need):
            break
        size = min(len(shifted), 4 * size)
    # a stable sort of small integers is a radix sort
    small = block.astype(np.uint16) if len(need) <= 2**16 else block
    order = np.argsort(small, kind="stable")
    ends = np.cumsum(have)[block[order]]
    return len(shifted) - size + order[ends - np.arange(len(order)) <= n]


def _first_per_group(codes: np.ndarray) -> dict[int, int]:
    """code → position of its first row (codes ≥ 0), from the shortest prefix holding all."""
    present = np.flatnonzero(np.bincount(codes[codes >= 0])) if len(codes) else []
    size = min(len(codes), 4096)
    while True:
        block = pd.Series(codes[:size])
        first = block[block >= 0].drop_duplicates()
        if size == len(codes) or len(first) == len(present):
            return dict(zip(first.tolist(), first.index.tolist(), strict=True))
        size = min(len(codes), 4 * size)


def _time_span(ts: pd.Series, codes: np.ndarray, names: Any) -> tuple[dict, dict]:
    """Per node, its first and last time (min and max, NaT ignored).

    In a time-sorted timeline without NaT, those are the times of its first and last row.
    """
    raw = ts.to_numpy(dtype="datetime64[ns]")
    if len(raw) and not np.isnat(raw).any() and bool(np.all(raw[1:] >= raw[:-1])):
        first = _first_per_group(codes)
        last_rows = _last_per_group(codes, 1)
        last = dict(zip(codes[last_rows].tolist(), last_rows.tolist(), strict=True))
        keys = sorted(first)
        mins = ts.iloc[[first[k] for k in keys]].tolist()
        maxs = ts.iloc[[last[k] for k in keys]].tolist()
        return (
            {str(names[k]): v for k, v in zip(keys, mins, strict=True)},
            {str(names[k]): v for k, v in zip(keys, maxs, strict=True)},
        )
    times = ts.groupby(codes).agg(["min", "max"])
    return (
        {str(names[k]): v for k, v in times["min"].items() if k >= 0},
        {str(names[k]): v for k, v in times["max"].items() if k >= 0},
    )


def _last_meaningful(tail: pd.DataFrame | list) -> dict:
    """The last event with some words in it (a log may end with a lone ``}``)."""
    rows = _records(tail) if isinstance(tail, pd.DataFrame) else tail
    for row in reversed(rows):
        if re.search(r"[A-Za-z]{3}", _text(row.message)):
            return _event(row)
    return _event(rows[-1])


def _facts_from_ingest(ingest: Ingest) -> dict[str, Facts]:
    facts: dict[str, Facts] = {}
    for node, info in ingest.nodes.items():
        tf_task = (info.tf_config or {}).get("task") if isinstance(info.tf_config, dict) else None
        facts[node] = Facts(
            node,
            files=list(info.files),
            lines=int(info.lines),
            cluster=info.cluster,
            address=info.address,
            task=tf_task if isinstance(tf_task, dict) else None,
            task_source=str((info.tf_config or {}).get("from") or "TF_CONFIG")
            if isinstance(info.tf_config, dict)
            else "TF_CONFIG",
            missing=info.missing,
            twins=list(getattr(info, "twins", []) or []),
            rank=getattr(info, "rank", None),
            aliases=list(getattr(info, "aliases", []) or []),
            copy_of=getattr(info, "copy_of", None),
        )
    return facts


def program_node(name: str, facts: dict[str, Facts]) -> str | None:
    """The task a launcher's name for a process is (``sending SIGTERM to worker.2``): the task
    whose lines the launcher showed under that name, else the task the name says as a log
    file's name would (``tf-worker-1``: worker:1); None if no known task."""
    for node, f in facts.items():
        if name in f.aliases:
            return node
    node = hint_from_name(name).node
    return node if node in facts else None


def node_facts(
    timeline: pd.DataFrame, ingest: Ingest, *, columns: _Columns | None = None
) -> dict[str, Facts]:
    """Step 1: per node, its times, ending, exit info, versions, cluster spec and address."""
    facts = _facts_from_ingest(ingest)
    if timeline.empty:
        return facts
    columns = columns or _Columns(timeline)
    ts = columns.ts
    codes, names = columns.nodes
    firsts, lasts = _time_span(ts, codes, names)
    fact_rows = _fact_rows(timeline)
    versions = _scan_versions(fact_rows)
    configs = _tf_config_lines(fact_rows)
    sources = _source_lines(timeline)
    for node, (labels, tail) in _tails(timeline, ts, codes).items():
        f = facts.setdefault(node, Facts(node))
        f.first_time, f.last_time = firsts[node], lasts[node]
        f.last_line = _last_meaningful(tail)
        f.tail_rows = labels
        f.ending, f.exit_info, f.exit_line = _ending_of(tail)
        f.uncaught = f.ending == "exception" and any(
            isinstance(v, str) and v == "python_traceback"
            for v in (getattr(row, "format", None) for row in tail)
        )
        f.versions, f.version_lines = versions.get(node, ({}, {}))
        f.source_lines = sources.get(node, {})
        f.tf_config_line = configs.get(node)
    return facts


def _source_lines(timeline: pd.DataFrame) -> dict[str, dict[tuple[str, str], str]]:
    """Per node, the source line each distinct C++ log message came from (``file.cc:123]``).

    Only distinct (node, source, message start) rows are turned into Python values; the message
    template masks numbers, so one message at two times is one key.
    """
    if "source" not in timeline or timeline.empty:
        return {}
    rows = timeline[["node", "source", "message"]]
    rows = rows[rows["source"].notna().to_numpy(dtype=bool)]
    if rows.empty:
        return {}
    start = rows["message"].astype("string").str.slice(0, 48)
    distinct = (
        pd.DataFrame(
            {"node": rows["node"].astype(str), "source": rows["source"].astype(str), "start": start}
        )
        .drop_duplicates()
        .head(MAX_FACT_ROWS)
    )
    out: dict[str, dict[tuple[str, str], str]] = {}
    for node, source, start in distinct.itertuples(index=False):
        name, _, line = str(source).rpartition(":")
        if not name or not line.isdigit() or not isinstance(start, str):
            continue
        template = _DIGITS_RE.sub("#", start)
        out.setdefault(node, {})[(name, template)] = line
    return out
