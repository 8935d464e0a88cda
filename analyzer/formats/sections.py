"""Files of sections: one source's lines after another's, each under a header naming it.

A tool that gathers several hosts' or files' output may group it by source instead of
prefixing every line: pdsh's ``dshbak`` (and ClusterShell's ``clush -b``) print each host's
lines, without their ``host: `` prefix, after a header of a ruler, the host and the ruler
again (``dshbak -c`` joins hosts whose output was the same: ``worker[0,2]``; clush adds a
count: ``node[1-2] (2)``); ``tail``/``head`` of several files print ``==> path <==`` before
each file's lines. A file is read as sections when such a header is among its first lines;
each line then has its section's name as its source (the ``rank`` a wrapper would give it)
when there are two sections or more, the header lines are no events, and a multi-line event
never runs past the end of its section.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from analyzer.formats.lines import Lines, bools

#: a dshbak / clush ruler (dshbak prints 16 '-', clush 15); a banner of '=' is a script's own
_RULER = r"^-{4,}[ \t]*$"
#: the header's middle line: a host, a dshbak -c range, a clush count after it
_NAME = r"^[ \t]*(?P<name>[\w.@:\[\],-]+)(?: \(\d+\))?[ \t]*$"
#: tail's and head's header of each file
_TAIL = r"^==> (?P<name>.+) <==[ \t]*$"
#: how far into a file its first header may be (blank lines before it)
_LEAD = 20
_RULER_RE, _NAME_RE, _TAIL_RE = (re.compile(p, re.ASCII) for p in (_RULER, _NAME, _TAIL))


@dataclass
class Sections:
    """Where each line's section is, found by :func:`find`."""

    source: pa.Array  #: per line, the name of its section (null before the first header)
    header: np.ndarray  #: per line, True for the lines of a header
    ends: np.ndarray  #: per line, the row after the last of its section (exclusive)


def starts_with_header(head: list[str]) -> bool:
    """Whether a section header is among the first lines of a file (a tool's own warnings may
    come before it: dshbak's Perl warnings on its stderr, sent to the same file). A few lines
    of each file: Python's own regular expressions, no column to build."""
    lines = [line.rstrip("\r\n") for line in head[:_LEAD]]
    if any(_TAIL_RE.search(line) for line in lines):
        return True
    ruler = [bool(_RULER_RE.search(line)) for line in lines]
    return any(
        ruler[i] and not ruler[i + 1] and lines[i + 2] == lines[i] and _NAME_RE.search(lines[i + 1])
        for i in range(len(lines) - 2)
    )


def find(lines: Lines) -> Sections | None:
    """The sections of a file's lines, or None when the file does not start with a section
    header (:func:`starts_with_header`; only its first lines are read to tell)."""
    n = len(lines)
    if n == 0 or not starts_with_header(lines.text(np.arange(min(n, _LEAD))).to_pylist()):
        return None
    text = lines.text()
    header = np.zeros(n, dtype=bool)
    names: dict[int, str] = {}  # the first row of a header -> its section's name
    ruler = bools(pc.match_substring_regex(text, _RULER))
    at = np.flatnonzero(ruler[:-2] & ruler[2:] & ~ruler[1:-1]) if n >= 3 else np.zeros(0, int)
    if len(at):
        middle = pc.extract_regex(text.take(pa.array(at + 1)), _NAME)
        ok = bools(middle.is_valid())
        first = text.take(pa.array(at)).to_pylist()
        third = text.take(pa.array(at + 2)).to_pylist()
        for k, i in enumerate(at.tolist()):
            if ok[k] and first[k] == third[k] and not header[i]:
                header[i : i + 3] = True
                names[i] = middle[k]["name"].as_py()
    tail = pc.extract_regex(text, _TAIL)
    for i in np.flatnonzero(bools(tail.is_valid())).tolist():
        if not header[i]:
            header[i] = True
            names[i] = PurePosixPath(tail[i]["name"].as_py()).name or tail[i]["name"].as_py()
    starts = np.array(sorted(names), dtype=np.int64)
    bounds = np.r_[starts, n]
    section = np.searchsorted(starts, np.arange(n), side="right") - 1  # -1 before the first
    ends = np.where(section >= 0, bounds[np.maximum(section, 0) + 1], bounds[0])
    if len(set(names.values())) < 2:  # one source: the file's own name tells it best
        return Sections(source=pa.nulls(n, pa.large_string()), header=header, ends=ends)
    labels = pa.array([names[s] for s in starts.tolist()], pa.large_string())
    source = labels.take(pa.array(np.where(section >= 0, section, 0), pa.int64()))
    source = pc.if_else(pa.array(section >= 0), source, pa.nulls(n, pa.large_string()))
    return Sections(source=source, header=header, ends=ends)
