"""The machine-readable report: exactly the object of shared/contract.md.

:func:`build` returns plain Python data (str, int, float, bool, None, list, dict) that
``json.dumps`` always accepts and that encodes to valid UTF-8 JSON whatever bytes the logs held:
lone surrogates become U+FFFD, NaN and infinities become ``null``, numpy and pandas scalars become
Python ones. Log text is redacted unless ``redact=False`` (a line that lies inside a multi-line
secret too, though the JSON shows it alone: :func:`analyzer.report.redact.for_run`).
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

from analyzer import __version__
from analyzer.report.redact import for_run, redact_series

if TYPE_CHECKING:
    import pandas as pd

    from analyzer.run import Run

SCHEMA_VERSION = 1

#: Columns of one finding in the contract, in order.
FINDING_FIELDS = (
    "node",
    "time",
    "category",
    "pattern_id",
    "severity",
    "message",
    "file",
    "line_no",
    "repeats",
)

#: Keys whose values are ids or enums, never log text: left alone by redaction.
_NOT_TEXT = frozenset(
    {
        "node",
        "task",
        "time",
        "category",
        "status",
        "pattern_id",
        "severity",
        "schema_version",
        "tool_version",
        "first_error_time",
        "last_time",
        "first_time",
        "first_error_category",
        "ending",
    }
)

_SURROGATE = re.compile(r"[\ud800-\udfff]")


def clean(obj: Any) -> Any:
    """``obj`` as JSON-safe plain Python data (see the module docstring)."""
    kind = type(obj)  # (the usual exact types first: a report holds hundreds of thousands)
    if kind is str:
        return obj if obj.isascii() or not _SURROGATE.search(obj) else _SURROGATE.sub("\ufffd", obj)
    if kind is dict:
        return {
            (k if type(k) is str and k.isascii() else str(clean(k))): clean(v)
            for k, v in obj.items()
        }
    if kind is list:
        return [clean(v) for v in obj]
    if kind is int or kind is bool or obj is None:
        return obj
    if kind is float:
        return obj if math.isfinite(obj) else None
    return _clean_other(obj)


def _clean_other(obj: Any) -> Any:
    """:func:`clean` of anything but an exact str, dict, list, int or bool."""
    if obj is None or isinstance(obj, bool):
        return obj
    if isinstance(obj, str):
        return _SURROGATE.sub("\ufffd", obj) if _SURROGATE.search(obj) else obj
    if isinstance(obj, int):
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(clean(k)): clean(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple | set | frozenset):
        return [clean(v) for v in obj]
    try:  # numpy / pandas scalars and timestamps
        import numpy as np
        import pandas as pd

        if obj is pd.NaT or (not isinstance(obj, np.ndarray) and pd.isna(obj)):
            return None
        if isinstance(obj, np.bool_):
            return bool(obj)
        if isinstance(obj, np.integer):
            return int(obj)
        if isinstance(obj, np.floating):
            return clean(float(obj))
        if isinstance(obj, np.ndarray):
            return [clean(v) for v in obj.tolist()]
        if isinstance(obj, pd.Timestamp):
            from analyzer.model import iso

            return iso(obj)
    except (TypeError, ValueError):
        pass
    return clean(str(obj))


def iso_series(ts: pd.Series) -> list[str | None]:
    """A timestamp column as contract times (``...Z`` in UTC), ``None`` for missing ones."""
    import numpy as np
    import pandas as pd

    ts = pd.to_datetime(ts, utc=True, errors="coerce").dt.tz_convert(None)
    values = ts.to_numpy(dtype="datetime64[us]")
    text = np.datetime_as_string(values, unit="us")
    return [None if t == "NaT" else t + "Z" for t in text.tolist()]


def findings_records(run: Run, *, redact: bool = True) -> list[dict[str, Any]]:
    """The contract's ``findings``: every non-benign finding, in time order."""
    found = run.findings
    if found is None or len(found) == 0:
        return []
    if "benign" in found.columns:
        found = found[~found["benign"].fillna(False).astype(bool)]
    if len(found) == 0:
        return []
    message = found["message"]
    if redact:
        message = _redact_messages(run, found, redact_series(message))
    columns = {
        "node": found["node"].astype(object).tolist(),
        "time": iso_series(found["ts"]),
        "category": found["category"].astype(object).tolist(),
        "pattern_id": found["pattern_id"].astype(object).tolist(),
        "severity": found["severity"].astype(object).tolist(),
        "message": message.astype(object).tolist(),
        "file": found["file"].astype(object).tolist(),
        "line_no": [None if v != v else int(v) for v in found["line_no"].astype(float).tolist()],
        "repeats": (
            found["repeats"].fillna(1).astype(int).tolist()
            if "repeats" in found.columns
            else [1] * len(found)
        ),
    }
    records = [
        dict(zip(FINDING_FIELDS, row, strict=True)) for row in zip(*columns.values(), strict=True)
    ]
    return clean(records)


def _redact_messages(run: Run, found: pd.DataFrame, message: pd.Series) -> pd.Series:
    """Messages whose line lies inside a multi-line secret (or quotes a value of one) hidden."""
    R = for_run(run)
    if not R.secrets:
        return message
    out = message.astype(object).copy()
    files = found["file"].astype(object).tolist()
    nos = found["line_no"].astype(float).tolist()
    for i, (text, file, no) in enumerate(zip(out.tolist(), files, nos, strict=True)):
        if isinstance(text, str):
            out.iat[i] = R.line(text, file, no) if R.secret_at(file, no) else R(text)
    return out


def build(run: Run, *, redact: bool = True) -> dict[str, Any]:
    """The JSON object of shared/contract.md for ``run``."""
    diagnosis = run.diagnosis
    analyzed = run.ingest.lines_in_timeline > 0 or any(
        n.status != "missing" for n in diagnosis.nodes
    )
    root_cause = diagnosis.root_cause.to_dict() if analyzed else None
    if root_cause is not None and redact:
        R = for_run(run)
        for e in root_cause.get("evidence") or []:
            e["text"] = R.line(e.get("text"), e.get("file"), e.get("line_no"))
    if root_cause is not None and "remediation" not in root_cause:
        advice = remediation_for(run)
        if advice:
            root_cause["remediation"] = advice
    out: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "tool_version": __version__,
        "root_cause": root_cause,
        "nodes": [n.to_dict() for n in diagnosis.nodes],
        "findings": None,  # filled below, already clean and redacted
        "ingest": run.ingest.to_dict(),
        "consistency": list(diagnosis.consistency),
        "warnings": list(dict.fromkeys([*run.problems, *getattr(run.rules, "warnings", [])])),
    }
    if run.command:
        out["command"] = run.command
    from analyzer.progress import to_json as progress_json

    out["progress"] = progress_json(run.progress)
    if run.comparison is not None:
        out["baseline"] = run.comparison.to_dict()
    findings = findings_records(run, redact=redact)
    out = clean(out)
    if redact:
        out = for_run(run).obj(out, skip=_NOT_TEXT)
    out["findings"] = findings
    return out


#: What to do about each root-cause category when no pattern gave specific advice.
CATEGORY_ADVICE: dict[str, str] = {
    "deadline_exceeded": "An RPC, collective or barrier timed out. Check whether the peer it waited "
    "on was slow, stuck or dead (its own log around that time); raise the timeout only if the "
    "peer was merely slow (large checkpoints, slow storage, overloaded network).",
    "address_in_use": "Another process already holds the task's port: a stale task from an "
    "earlier run or two tasks given the same address. Kill the leftover process or give each "
    "task a distinct port in TF_CONFIG / the cluster spec.",
    "connection_unavailable": "A peer refused or dropped the connection. This is usually a "
    "symptom: look at the named peer's log for why it went away (crash, OOM kill, preemption), "
    "and check that every address in the cluster spec is reachable (firewall, ports, hosts).",
    "name_resolution": "A host name in the cluster spec did not resolve. Check DNS / headless "
    "service names, /etc/hosts, and that the pod or VM existed when the job started.",
    "cluster_spec_mismatch": "The tasks disagree on the cluster. Generate TF_CONFIG for all "
    "tasks from one source and check each task's type and index against the spec.",
    "session_blocked": "Start-up waited on a task that never answered. Check that every task "
    "in the cluster spec was started, listens on its address, and is reachable from the others.",
    "version_mismatch": "The tasks run different TensorFlow / protobuf / gRPC builds. Use one "
    "image (or one pinned environment) for every task.",
    "dtype_mismatch": "A tensor's dtype does not match what its consumer expects. Cast inputs "
    "explicitly (tf.cast) and check the dataset's element_spec against the model's inputs.",
    "shape_mismatch": "A tensor's shape does not fit its consumer. Check the per-replica batch "
    "size, the dataset's element_spec and the model's input shapes.",
    "oom": "Memory ran out. Lower the per-replica batch size or model size, look for a memory "
    "leak across steps, or give the task more memory (host RAM or GPU).",
    "node_crash": "The task died (killed, crashed or its log just stops). Look at the end of its "
    "log and at the system around it: OOM killer (dmesg), exit code 137/139, the scheduler's "
    "events, core dumps.",
    "coordination_failure": "The coordination service or a collective group gave up on a task. "
    "Find why that task stopped heartbeating (crash, hang, network partition) in its own log.",
    "hang": "A task stopped making progress while it stayed alive, and its peers waited on it. "
    "Look at what that task was doing when its progress stopped (py-spy dump or a stack dump of "
    "the live process, a stuck input pipeline, a lock, a stopped or swapped-out process), and set "
    "collective / RPC timeouts so a hang fails fast instead of waiting for an outside timeout.",
    "straggler": "One task ran much slower than its peers and the whole job ran at its pace. "
    "Compare that task's host with the others (CPU/GPU load, throttling, noisy neighbours, disk, "
    "network), its input pipeline and its batch size.",
    "preemption": "The scheduler took the task away. Use preemptible-aware training "
    "(BackupAndRestore / PreemptionCheckpointHandler) and checkpoint often enough.",
    "concurrent_write": "Several tasks wrote the same file at once. Let only the chief write "
    "checkpoints, summaries and saved models, or give every task its own path.",
    "filesystem_error": "Storage failed. Check the path exists, the credentials and "
    "permissions of every task, quotas, and the storage service's health.",
    "collective_error": "NCCL or another collective backend failed. Check the GPUs and "
    "interconnect of every task, NCCL_DEBUG=INFO output, and matching NCCL/driver versions.",
    "none": "Nothing failed: no action needed.",
}


def remediation_for(run: Run) -> str | None:
    """Advice for the root cause: the diagnosis's own, its pattern's, else the category's."""
    rc = run.diagnosis.root_cause
    if rc.remediation:
        return reflow(rc.remediation)
    rules = getattr(run, "rules", None)
    rule = rules.get(rc.pattern_id) if rules is not None and rc.pattern_id else None
    if rule is not None and rule.remediation:
        return reflow(rule.remediation)
    return CATEGORY_ADVICE.get(rc.category)


def reflow(text: str) -> str:
    """Hard-wrapped prose (YAML block text) as paragraphs: lines joined, blank lines and list
    items kept."""
    out: list[str] = []
    for para in re.split(r"\n\s*\n", text.strip()):
        lines: list[str] = []
        for line in para.splitlines():
            line = line.strip()
            if lines and not re.match(r"^(?:[-*•]|\d+[.)])\s", line):
                lines[-1] += " " + line
            else:
                lines.append(line)
        out.append("\n".join(lines))
    return "\n\n".join(out)
