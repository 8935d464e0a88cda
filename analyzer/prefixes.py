"""Line prefixes of launchers tfdiag has no rule for, learned from the file itself.

A launcher or log collector that tfdiag does not know (Ray's ``(Actor pid=N, ip=A)``, pdsh's
``host: ``, a CI console's ``[time] ``, a task runner's own log line around each output line)
puts the same kind of text before every line of a task's output. Known line formats (absl,
TF C++, Python logging, a traceback's start) then start at some offset into most lines, after
text of one shape. :func:`learn` finds that shape in a file's first lines and writes it as a
wrapper pattern (the named groups of :class:`analyzer.formats.Wrapper`): the text after it is
the line (a time in the prefix is not taken for the line's: it may be when a collector read
the line, long after a buffered process wrote it), and a part that names a few different things
(a host, a pod, a rank) is the line's source, so one stream of several tasks is parted as a
known launcher's is.

The shape is tokens: words (``[\\w.@-]+``), runs of blanks, single punctuation, and dates,
clocks and ISO times as one token each. Each offset where a format starts after some text gives
a line a candidate prefix; the shape (the kinds of its tokens) most lines hold is kept, a tie
going to the longer, when the pattern made of it matches most of the sample's lines (a word that is the same on every line
stays literal, one that varies matches any word). Nothing is learned when most lines that hold a
format hold it at their start (the file is not wrapped) or no shape holds most lines.
"""

from __future__ import annotations

import re
from collections import Counter

from analyzer.formats.catalog import BAR_TEXT, GLUED_LINE_START

#: where a known line format may start (absl, TF C++, Python logging, python_basic, traceback)
_STARTS = re.compile(
    r"[IWEF]\d{4} \d\d:\d\d:\d\d"
    r"|\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d"
    r"|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):[\w.]+:"
    r"|Traceback \(most recent call last\):"
)
#: RE2 forms for a whole column: a format at a line's start, or after some text
STARTS_AT_LINE_START = "^(?:" + _STARTS.pattern + ")"
STARTS_AFTER_TEXT = "^[^\\n]{1,160}?(?:" + _STARTS.pattern + ")"

_ISO = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)"
_TOKEN = re.compile(
    rf"(?P<iso>{_ISO})|(?P<date>\d{{4}}-\d\d-\d\d)|(?P<clock>\d\d:\d\d:\d\d(?:[.,]\d+)?)"
    r"|(?P<word>[\w.@-]+)|(?P<blank>[ \t]+)|(?P<other>.)",
    re.ASCII,  # as RE2's \w, which applies the pattern
)
_WORD = r"[\w.@-]+"
_PATTERNS = {
    "iso": _ISO,
    "date": r"\d{4}-\d\d-\d\d",
    "clock": r"\d\d:\d\d:\d\d(?:[.,]\d+)?",
}
_MAX_PREFIX = 160
_MAX_LINE = 4096
_MAX_SOURCES = 256


def _tokens(prefix: str) -> list[tuple[str, str]]:
    return [(m.lastgroup or "other", m.group()) for m in _TOKEN.finditer(prefix)]


def _shape(prefix: str) -> tuple[str, ...]:
    return tuple(_kind(k, t) for k, t in _tokens(prefix))


def _kind(kind: str, text: str) -> str:
    if kind == "blank":
        return "\t" if "\t" in text else " "
    return text if kind == "other" else kind


def _more_words(shape: tuple[str, ...], same: list[list[tuple[str, str]]], i: int) -> int:
    """How many more varying words follow the source word at ``i``, each after one space:
    they name the source with it (``worker 1``, a job and its index)."""
    more = 0
    j = i
    while (
        j + 2 < len(shape)
        and shape[j + 1] == " "
        and shape[j + 2] == "word"
        and all(toks[j + 1][1] == " " for toks in same)
        and len({toks[j + 2][1] for toks in same}) > 1
    ):
        more += 1
        j += 2
    return more


def _format_offsets(line: str, formats: list[re.Pattern]) -> list[int]:
    """The offsets in ``line`` where a known format matches what follows."""
    found = []
    for m in _STARTS.finditer(line, 0, _MAX_PREFIX + 40):
        rest = line[m.start() :]
        if rest.startswith("Traceback") or any(f.match(rest) for f in formats):
            found.append(m.start())
    return found


#: a log line glued to a progress bar's last redraw: the bar's text, up to the line's own prefix
_BAR_GLUE = re.compile(f"{BAR_TEXT}(?={GLUED_LINE_START})")


def learn(lines: list[str], formats: list[re.Pattern]) -> tuple[str, str | None] | None:
    """A wrapper pattern for the prefix most of ``lines`` carry, and the group naming a line's
    source in it (``rank``) if any; ``None`` when the lines carry no common prefix.

    ``formats`` are the known line formats' patterns (anchored at the text they are given).
    A line may hold a format at its start and another after it (``[<ISO time>] INFO:tf:...``
    reads as a Python logging line, and as a python_basic one behind a timestamp): each offset
    is a candidate, and the prefix is the shape most lines share.
    """
    # (the prefix is in a line's first characters: a 100 MB line is not copied or scanned;
    # a log line glued to a progress bar's last redraw is seen from its own start)
    lines = [_BAR_GLUE.sub("", head, count=1) for s in lines if (head := s[:_MAX_LINE]).strip()]
    if len(lines) < 3:
        return None
    candidates: list[list[str]] = []  # per line that holds a format after some text
    at_start = 0
    for line in lines:
        offsets = _format_offsets(line, formats)
        prefixed = [line[:o] for o in offsets if o and line[:o].strip()]
        if prefixed:
            candidates.append(prefixed)
        elif offsets and offsets[0] == 0:
            at_start += 1
    if len(candidates) < 3 or len(candidates) <= at_start:
        return None
    support: Counter = Counter()
    for prefixed in candidates:
        support.update({_shape(p) for p in prefixed})
    # (a tie goes to the longer prefix: "[<ISO time>] INFO:tf:..." holds a Python logging line
    # after "[" and a python_basic one after the time, and the first swallows the second)
    shape, count = max(support.items(), key=lambda kv: (kv[1], len(kv[0])))
    if count * 5 < len(candidates) * 3:  # no shape holds three in five
        return None
    prefixes = [next((p for p in prefixed if _shape(p) == shape), None) for prefixed in candidates]
    prefixes = [p for p in prefixes if p is not None]
    same = [_tokens(p) for p in prefixes]
    parts: list[str] = []
    source: int | None = None
    skip = 0
    for i, kind in enumerate(shape):
        if skip:
            skip -= 1
            continue
        values = [toks[i][1] for toks in same]
        distinct = set(values)
        if kind in ("iso", "date", "clock"):
            # not the line's time: an unknown collector's time may be when it read the line,
            # and a Python process's piped prints reach it in bursts; a line keeps its own
            parts.append(f"(?:{_PATTERNS[kind]})")
        elif kind in (" ", "\t"):  # as wide as seen (a line's own indent is the line's)
            low, high = min(map(len, values)), max(map(len, values))
            width = "" if low == high == 1 else f"{{{low}}}" if low == high else f"{{{low},{high}}}"
            parts.append(re.escape(kind) + width)
        elif kind != "word":
            parts.append(re.escape(kind))
        elif len(distinct) == 1:
            parts.append(re.escape(values[0]))
        else:
            # a source: a name (or an IPv4 address) that logs about twice as often as there
            # are sources, not an id on every line
            named = (
                source is None
                and len(distinct) <= _MAX_SOURCES
                and 2 * len(distinct) <= len(values)
                and all(re.search(r"[A-Za-z]|^\d+(\.\d+){3}$", v) for v in distinct)
            )
            if named:
                source = i
                # a source of several words (GNU parallel --tag with two arguments: "worker 1")
                more = _more_words(shape, same, i)
                skip = 2 * more
                parts.append(f"(?P<rank>{_WORD}" + " [\\w.@-]+" * more + ")")
            else:
                parts.append(f"(?:{_WORD})")
    pattern = "^" + "".join(parts) + "(?P<inner>.*)$"
    compiled = re.compile(pattern, re.ASCII)
    matched = sum(1 for line in lines if compiled.match(line))
    if matched < max(3, len(lines) // 2 + 1):
        return None
    return pattern, ("rank" if source is not None else None)
