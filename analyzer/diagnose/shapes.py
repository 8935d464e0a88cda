"""Spatial outliers in a collective: the member whose tensor shape differs from the group's.

TensorFlow's collective resolver reports ``Shape mismatch in the collective instance N. Op at
device D expected shape A but another member in the group expected shape B`` — the device named
is the op being checked against the shape the group was formed with, so it may be the odd one
or the one that agreed with the odd first member. A vote settles it: the devices that report a
shape of their own differ from the group; when they are fewer than half the group's members,
they are the odd ones (the others joined with the group's shape and reported nothing).
"""

from __future__ import annotations

import re

from analyzer.diagnose.case import Case
from analyzer.diagnose.common import _TASK_RE, _values, error_texts

_MISMATCH_RE = re.compile(
    r"Op at device (?P<device>/job:[\w-]+(?:/replica:\d+)?/task:\d+)\S* expected shape "
    r"(?P<own>\[[^\]]*\]) but another member in the group expected shape (?P<group>\[[^\]]*\])"
)
TEXT_LIMIT = 4000  #: characters of an error's text searched (the message sits at its start)


def odd_shape_members(ev: Case) -> dict[str, str]:
    """Nodes whose collective op brought another shape than the rest of the group → why."""
    if ev.errors.empty:
        return {}
    texts = error_texts(ev.errors)
    hit = texts.str.contains("another member in the group expected shape", regex=False)
    own: dict[str, tuple[str, str]] = {}
    for text in _values(texts[hit.to_numpy(dtype=bool)]):
        for m in _MISMATCH_RE.finditer(str(text)[:TEXT_LIMIT]):
            t = _TASK_RE.search(m["device"])
            if t:
                own.setdefault(f"{t['job']}:{int(t['index'])}", (m["own"], m["group"]))
    members = [n for n in ev.facts if n not in ev.outside and ":" in n]
    if not own or len(own) * 2 >= len(members):
        return {}  # the reporters are not the minority: the odd member cannot be named
    return {
        node: f"its collective op has shape {a} where the group expects {b}"
        f" ({len(own)} of {len(members)} members differ)"
        for node, (a, b) in own.items()
        if node in ev.facts
    }
