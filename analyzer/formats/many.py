"""Many small files parsed as one (:func:`parse_many`)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from analyzer.formats.catalog import WRAPPERS
from analyzer.formats.events import events_of, parse_lines
from analyzer.formats.lines import ParsedLines, bools, decode, split_lines
from analyzer.formats.sections import starts_with_header
from analyzer.formats.select import Keep
from analyzer.formats.wrappers import formats_after_text

#: Files up to this size are parsed together by :func:`parse_many` (one pass for many).
SMALL_FILE = 64 * 1024


def parse_many(datas: list[bytes], keep: Keep | None = None) -> list[ParsedLines]:
    """:func:`parse_lines` of each of ``datas``, the small unwrapped ones in one pass.

    Thousands of files of a few lines each (a log per process, per rank, per pod) cost one
    parse, not thousands: their lines are joined, parsed as one file whose multi-line events
    stop at each file's end, and the events are cut back into one table per file. A file
    that is large, wrapped, of sections, or longer than a condensed parse keeps whole goes
    alone.
    """
    out: list[ParsedLines | None] = [None] * len(datas)
    small: list[int] = []
    texts: list[bytes] = []
    problems: list[list[str]] = []
    for i, data in enumerate(datas):
        if len(data) > SMALL_FILE:
            continue
        text, found = decode(data)
        if b"\r" in text:
            text = text.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        if text and not text.endswith(b"\n"):
            found.append("the last line has no line end (the file was cut off mid-line?)")
            text += b"\n"
        count = text.count(b"\n")
        if count == 0 or (keep is not None and count > keep.head + keep.tail):
            continue
        if starts_with_header(text[:8192].decode("utf-8", "replace").split("\n")[:20]):
            continue  # a file of sections is parted by them: parsed alone
        small.append(i)
        texts.append(text)
        problems.append(found)
    if len(small) > 1:
        _parse_together(small, texts, problems, keep, out)
    return [r if r is not None else parse_lines(d, keep) for r, d in zip(out, datas, strict=True)]


def _parse_together(
    index: list[int],
    texts: list[bytes],
    problems: list[list[str]],
    keep: Keep | None,
    out: list[ParsedLines | None],
) -> None:
    """Parse ``texts`` (decoded, each ending in a line end) as one; fill ``out[index[k]]``."""
    lines, _ = split_lines(b"".join(texts))
    counts = np.array([t.count(b"\n") for t in texts], dtype=np.int64)
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    file_of = np.repeat(np.arange(len(texts)), counts)
    blank = bools(pc.ascii_is_space(lines.view))
    # a file most of whose lines carry a wrapper is parsed alone (as detect_wrapper decides)
    text = lines.text()
    head = (np.arange(len(file_of)) - starts[file_of]) < 400
    filled = bools(pc.greater(pc.utf8_length(text), 0)) & head
    need = np.maximum(1, np.bincount(file_of[filled], minlength=len(texts)) // 2)
    wrapped = np.bincount(file_of[filled], minlength=len(texts)) == 0
    for wrapper in WRAPPERS:
        hits = bools(pc.match_substring_regex(text, wrapper.pattern)) & filled
        wrapped |= np.bincount(file_of[hits], minlength=len(texts)) >= need
    # a file whose formats mostly start after a prefix may carry one to learn: parsed alone too
    after = formats_after_text(text) & filled
    wrapped |= np.bincount(file_of[after], minlength=len(texts)) >= 3
    ends = (starts + counts)[file_of]
    table, in_group = events_of(
        lines, None, {}, None, ~blank & ~wrapped[file_of], None, None, keep, ends
    )
    first = table["line_no"].to_numpy() - 1
    owner = file_of[first]
    offset = pa.array(starts[owner])
    table = table.set_column(0, "line_no", pc.subtract(table["line_no"], offset))
    table = table.set_column(1, "line_end", pc.subtract(table["line_end"], offset))
    bounds = np.searchsorted(owner, np.arange(len(texts) + 1))
    blanks = np.bincount(file_of[blank & ~in_group], minlength=len(texts))
    # each file's formats and their counts, in the order they first appear (as value_counts)
    encoded = pc.dictionary_encode(table["format"].combine_chunks())
    names = encoded.dictionary.to_pylist()
    pair = owner * len(names) + encoded.indices.to_numpy(zero_copy_only=False)
    pairs, first_row, pair_count = np.unique(pair, return_index=True, return_counts=True)
    by_first = np.lexsort((first_row, pairs // max(len(names), 1)))
    pairs, pair_count = pairs[by_first], pair_count[by_first]
    pair_bounds = np.searchsorted(pairs // max(len(names), 1), np.arange(len(texts) + 1))
    for k, i in enumerate(index):
        if wrapped[k]:
            continue
        part = table.slice(bounds[k], bounds[k + 1] - bounds[k])
        span = slice(pair_bounds[k], pair_bounds[k + 1])
        out[i] = ParsedLines(
            table=part,
            lines_read=int(counts[k]),
            rejected={"blank line": int(blanks[k])} if blanks[k] else {},
            problems=problems[k],
            formats={
                names[p % len(names)]: c
                for p, c in zip(pairs[span].tolist(), pair_count[span].tolist(), strict=True)
            },
            wrapper=None,
            condensed=keep is not None,
        )
