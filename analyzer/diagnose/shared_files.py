"""A file several tasks wrote at once: the failure of a task reading or writing it is a
concurrent write, whatever its error says.

Every task of a multi-worker job that saves to one path (the same ``.h5``, the same export
file) races the others: without file locking nothing fails to open, and the loser reads back
what another task wrote, or a truncated file, and fails on whatever its own code checks next
(a ``ValueError`` no rule knows, an ``OSError`` of a file that is not what it should be). The
lock errors of HDF5 have rules of their own (``patterns/storage.yaml``); this signal reads the
logs instead:

- the root task's own first error names a file (a path with a name and an extension), and
- ``MIN_WRITERS`` or more tasks of the job logged that they wrote or saved that same file
  (:data:`WRITE_RE`), within ``WINDOW_S`` of each other and before that error.

Then the category is ``concurrent_write`` (:func:`shared_write`), and the writers' lines are
evidence. Only errors whose category says little (:data:`VAGUE`) are changed: a specific cause
(memory, a peer's connection) stays what its rule says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from analyzer.diagnose.common import _contains, _node_order, _utc, _utc_one
from analyzer.diagnose.stall import is_task

if TYPE_CHECKING:
    from analyzer.diagnose.case import Candidate, Case

MIN_WRITERS = 2  #: tasks that wrote the same file
WINDOW_S = 30.0  #: ... their write lines lie within this time of each other
#: The categories of an error a shared file explains better (what a vague exception gets).
VAGUE = frozenset({"node_crash", "filesystem_error"})
#: A file path: directories, then a name with an extension (``/tmp/x/model.h5``, ``gs://b/w.h5``).
PATH_RE = re.compile(r"(?:\b[a-z][\w+.-]*://)?(?:[\w.~-]*/)+[\w~-][\w.~-]*\.[A-Za-z0-9]{1,8}\b")
#: A line that says its task wrote or saves something.
WRITE_RE = re.compile(
    r"(?i)\b(?:sav(?:e|es|ed|ing)|writ(?:e|es|ing|ten)|wrote|dump(?:s|ed|ing)?"
    r"|export(?:s|ed|ing)?|stor(?:e|es|ed|ing))\b"
)


@dataclass
class SharedWrite:
    path: str
    writers: list[str]  #: the tasks that wrote it, in node order
    rows: dict[str, Any] = field(default_factory=dict)  #: writer → its first write line (label)


def _paths(text: str) -> list[str]:
    return list(dict.fromkeys(m.group(0) for m in PATH_RE.finditer(text)))


def shared_write(node: str, c: Candidate, ev: Case) -> SharedWrite | None:
    """The file ``node``'s own first error names that ``MIN_WRITERS`` or more tasks wrote
    at about the same time before it (module doc), or None."""
    key = f"shared_write:{node}"
    if key not in ev._memo:
        ev._memo[key] = _shared_write(c, ev)
    return ev._memo[key]


def _shared_write(c: Candidate, ev: Case) -> SharedWrite | None:
    timeline = ev._memo.get("timeline")
    if c.intrinsic is None or timeline is None or timeline.empty:
        return None
    if str(c.intrinsic.get("category")) not in VAGUE:
        return None
    text = c.intrinsic.get("full_text")
    if text is None or pd.isna(text):
        text = c.intrinsic.get("message")
    error_time = _utc_one(c.intrinsic.get("ts")) if c.intrinsic.get("ts") is not None else None
    for path in _paths(str(text or "")):
        rows = timeline[_contains(timeline["message"], re.escape(path))]
        if rows.empty:
            continue
        writes = rows[
            rows["message"].astype(str).map(lambda m: bool(WRITE_RE.search(m))).to_numpy()
        ]
        writes = writes[writes["node"].astype(str).map(is_task).to_numpy(dtype=bool)]
        if writes.empty:
            continue
        times = _utc(writes["ts"])
        if error_time is not None and not pd.isna(error_time):
            writes, times = writes[(times <= error_time).to_numpy()], times[times <= error_time]
        first = writes.assign(_t=times.to_numpy()).groupby(writes["node"].astype(str)).head(1)
        if first["node"].nunique() < MIN_WRITERS:
            continue
        spread = (first["_t"].max() - first["_t"].min()).total_seconds()
        if pd.isna(spread) or spread > WINDOW_S:
            continue
        writers = sorted(map(str, first["node"]), key=_node_order)
        return SharedWrite(
            path=path,
            writers=writers,
            rows={str(n): label for n, label in zip(first["node"], first.index, strict=True)},
        )
    return None
