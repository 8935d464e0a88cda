"""A source's bytes as lines: decoding, splitting, and the zero-copy Arrow view over them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from analyzer.formats.catalog import MAX_LINE_CHARS

#: What a digit becomes in a line's *shape* (:func:`templates`): control characters logs do not
#: hold (a text that does hold one is masked line by line); ``0`` has its own (``0x`` starts a
#: hex number, ``1x`` does not).
ZERO_MARK, DIGIT_MARK = "\x1d", "\x1e"
DIGITS_TO_MARK = bytes(0x1D if c == 48 else 0x1E if 49 <= c < 58 else c for c in range(256))


@dataclass
class ParsedLines:
    """The lines of one source as a table; see :data:`analyzer.timeline.SCHEMA` for columns.

    ``table`` has one row per event (a traceback is one row spanning ``line_no`` to
    ``line_end``); blank lines are not in it but counted in ``rejected``.
    """

    table: pa.Table
    lines_read: int
    rejected: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    formats: dict[str, int] = field(default_factory=dict)
    wrapper: str | None = None
    condensed: bool = False  #: True when only the lines a :class:`Keep` selects are in ``table``

    @property
    def lines_in_timeline(self) -> int:
        """Lines that are (or, condensed, would be) part of an event in the timeline."""
        return self.lines_read - sum(self.rejected.values())


def decode(data: bytes) -> tuple[bytes, list[str]]:
    """Return ``data`` as valid UTF-8 with a problem note for every repair made."""
    problems: list[str] = []
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16").encode("utf-8"), ["UTF-16 text (byte-order mark); decoded"]
        except UnicodeDecodeError:
            text = data.decode("utf-16", "replace")
            return text.encode("utf-8"), [
                "UTF-16 text with invalid code units; replaced with U+FFFD"
            ]
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        if not data.isascii():  # (ASCII is UTF-8: no decoded copy needed to tell)
            data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", "backslashreplace")
        problems.append(
            f"not valid UTF-8 (first bad byte at offset {exc.start:,}); "
            "bad bytes kept as \\xNN escapes"
        )
        data = text.encode("utf-8")
    if b"\x1b[" in data:  # colour codes (Jupyter's tracebacks, coloured loggers, launchers)
        data = _COLOUR_RE.sub(b"", data)
    return data, problems


#: An SGR colour code (``ESC [ 31 m``): removed as a terminal renders it, so that a coloured
#: exception name still reads ``TypeError: ...``. Other control sequences stay, and every
#: report shows them escaped.
_COLOUR_RE = re.compile(rb"\x1b\[[0-9;]*m")


@dataclass
class Lines:
    """The lines of one decoded source, as a zero-copy Arrow view over its bytes.

    Each element of ``view`` still ends with its ``\n``; :meth:`text` gives lines without it.
    Regular expressions that only test lines (selection, blank, has-time) run on the view,
    so only the rows that become events are ever copied.
    """

    view: pa.LargeStringArray
    offsets: np.ndarray  #: int64 byte offsets of the line starts, plus the end
    data: bytes
    longest: int  #: bytes in the longest line

    def __len__(self) -> int:
        return len(self.view)

    def text(self, rows: np.ndarray | None = None) -> pa.Array:
        """Lines ``rows`` (all when None) without their line end, cut at :data:`MAX_LINE_CHARS`."""
        view = self.view if rows is None else self.view.take(pa.array(rows, pa.int64()))
        lines = pc.utf8_slice_codeunits(view, 0, -1)
        if self.longest > MAX_LINE_CHARS:
            lines = pc.utf8_slice_codeunits(lines, 0, MAX_LINE_CHARS)
        return lines

    def shapes(self) -> pa.LargeStringArray | None:
        """Each line (with its line end, uncut) with every ASCII digit as a mark
        (:data:`DIGITS_TO_MARK`): lines of one *shape* differ only in their digits (see
        :func:`analyzer.formats.repeats.templates`). None when the file holds a mark itself (a
        shape would not tell it from a digit)."""
        if ZERO_MARK.encode() in self.data or DIGIT_MARK.encode() in self.data:
            return None
        shaped = self.data.translate(DIGITS_TO_MARK)
        return pa.LargeStringArray.from_buffers(
            len(self.view), pa.py_buffer(self.offsets), pa.py_buffer(shaped)
        )

    def blocks(self, size: int) -> pa.Array:
        """Zero-copy view of runs of ``size`` lines as single strings (for a fast first test)."""
        bounds = np.concatenate([self.offsets[:-1:size], self.offsets[-1:]])
        return pa.LargeStringArray.from_buffers(
            len(bounds) - 1, pa.py_buffer(bounds), pa.py_buffer(self.data)
        )


def split_lines(data: bytes) -> tuple[Lines, list[str]]:
    """Split UTF-8 bytes into :class:`Lines` (``\n``, ``\r\n`` and lone ``\r`` end a line)."""
    problems: list[str] = []
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if data and not data.endswith(b"\n"):
        problems.append("the last line has no line end (the file was cut off mid-line?)")
        data += b"\n"
    raw = np.frombuffer(data, dtype=np.uint8)
    step = 1 << 23  # in 8 MB pieces: no byte-sized mask of the whole file
    ends = np.concatenate(
        [np.flatnonzero(raw[i : i + step] == 10) + i for i in range(0, len(raw), step)]
        or [np.zeros(0, dtype=np.int64)]
    )
    offsets = np.empty(len(ends) + 1, dtype=np.int64)
    offsets[0] = 0
    offsets[1:] = ends + 1
    view = pa.LargeStringArray.from_buffers(len(ends), pa.py_buffer(offsets), pa.py_buffer(data))
    sizes = np.diff(offsets) - 1
    longest = int(sizes.max()) if len(sizes) else 0
    if longest > MAX_LINE_CHARS:
        long_rows = np.flatnonzero(sizes > MAX_LINE_CHARS)
        problems.append(
            f"{len(long_rows)} line(s) longer than {MAX_LINE_CHARS:,} characters (longest "
            f"{longest:,} bytes, line {long_rows[0] + 1}); kept their first {MAX_LINE_CHARS:,}"
        )
    return Lines(view, offsets, data, longest), problems


def bools(array: pa.Array) -> np.ndarray:
    return pc.fill_null(array, False).to_numpy(zero_copy_only=False)
