"""Classify timeline events with the pattern library.

``classify(events, rules)`` returns the findings: one row per event that a rule matched,
with the rule that won.  The winner is the first matching rule in the ruleset's priority order
(benign rules first, then higher ``priority``, then definition order; see
:mod:`analyzer.rules`).

How it stays fast on millions of lines, most of which match nothing:

1. One prefilter: every rule's keywords (literal substrings) become a single case-insensitive
   RE2 alternation, run by ``pyarrow.compute.match_substring_regex`` over the whole
   ``message`` column (and over ``detail`` for the keywords of rules that read it).  Only rows
   that contain some keyword are candidates.
2. On the candidate rows only, each keyword is located with ``pyarrow.compute.match_substring``;
   a rule is tried only on the rows where one of its own keywords occurs.
3. Rules run in priority order; a row is taken by the first rule whose conditions and regex
   match.  Every ``regex`` call has a ``timeout``: a rule that times out (catastrophic
   backtracking) is reported in ``problems`` and disabled for the rest of this call (one batch
   of files: the whole run for a small input, a share of the files in a process pool or on Dask).

Rules without keywords (none given, none derivable) are tried on every row.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from analyzer.rules import Rule, RuleSet

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

MAX_CHARS = 200_000
_PARALLEL_ROWS = 400_000

FINDING_COLUMNS = [
    "row",
    "pattern_id",
    "category",
    "severity",
    "captures",
    "blames",
    "benign",
    "title",
]


@dataclass
class ClassifyResult:
    """``findings``: one row per matched event (index = the event's index label in the input;
    ``row`` = its position), columns ``pattern_id``, ``category``, ``severity``, ``captures``
    (JSON object of the named groups that matched), ``blames`` (the captured value the rule
    blames, ``"self"``, or None), ``benign``, ``title``.
    ``problems``: human-readable notes (timeouts, missing columns)."""

    findings: pd.DataFrame
    problems: list[str] = field(default_factory=list)
    candidates: int = 0


def _re2_escape(s: str) -> str:
    out = []
    for ch in s:
        if ch.isalnum() or ch in " _-:/,'\"=<>@#%&!~`;":
            out.append(ch)
        elif ord(ch) < 128:
            out.append("\\" + ch)
        else:
            out.append(f"\\x{{{ord(ch):x}}}")
    return "".join(out)


def _column(events: pd.DataFrame, name: str, n: int) -> pa.Array:
    import pyarrow as pa

    if name not in events.columns:
        return pa.nulls(n, pa.string())
    col = events[name]
    try:
        arr = pa.array(col, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        arr = pa.array(col.astype(object).where(col.notna(), None).map(_to_str), pa.string())
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        if pa.types.is_null(arr.type):
            return pa.nulls(n, pa.string())
        arr = arr.cast(pa.string())
    return arr


def _cap(text, limit: int):
    return text[:limit] if isinstance(text, str) and len(text) > limit else text


def _to_str(v):
    return v if v is None or isinstance(v, str) else str(v)


@lru_cache(maxsize=64)
def _alternation(keywords: tuple[str, ...]) -> str:
    """An RE2 pattern matching any of the (literal, lower-case) keywords, case-insensitively:
    a keyword that holds a shorter one is left out (no text holds it and not the shorter), so
    the pattern has fewer alternatives and RE2's automaton stays small and fast."""
    kept: list[str] = []
    for k in sorted(set(keywords), key=len):
        if not any(short in k for short in kept):
            kept.append(k)
    return "|".join(_re2_escape(k) for k in sorted(kept))


def _mask(arr: pa.Array, keywords: list[str]) -> np.ndarray:
    """Rows of ``arr`` containing any keyword (case-insensitive): one RE2 pass (over blocks of
    rows first, see :func:`regex_rows`), in parallel chunks on large arrays (pyarrow releases
    the GIL)."""
    n = len(arr)
    if not keywords or n == 0:
        return np.zeros(n, dtype=bool)
    pattern = _alternation(tuple(keywords))

    def run(chunk: pa.Array) -> np.ndarray:
        return regex_rows(chunk, pattern, ignore_case=True)

    workers = min(4, os.cpu_count() or 1)
    if workers < 2 or n < _PARALLEL_ROWS:
        return run(arr)
    from concurrent.futures import ThreadPoolExecutor

    step = -(-n // workers)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        parts = list(pool.map(lambda i: run(arr.slice(i, step)), range(0, n, step)))
    return np.concatenate(parts)


_SAMPLE_EVERY = 16
#: Below this many bytes a column is searched once, without blocks: pyarrow compiles the
#: pattern at every call (milliseconds for the rules' hundreds of keywords), which costs more
#: than RE2's pass over a few megabytes.
_DIRECT_BYTES = 4 << 20


def regex_rows(
    arr: pa.Array, pattern: str, *, ignore_case: bool = False, block: int = 8
) -> np.ndarray:
    """``pc.match_substring_regex(arr, pattern, ignore_case=...)`` as a numpy mask (null: False).

    RE2 first searches blocks of ``block`` consecutive rows, each block's bytes as one string
    (a zero-copy view of the array's buffers); only the rows of the blocks that matched are
    then searched one by one. A row that matches makes its block match as long as the pattern
    has no anchor or word boundary (``^``, ``$``, ``\\b``...): only such patterns may come here.
    Worth it where few rows match in a large column: RE2's cost per searched string is then
    mostly saved; where most of a sample of blocks match, or the column is small, the rows
    are searched one by one at once.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    def search(values: pa.Array) -> np.ndarray:
        hit = pc.match_substring_regex(values, pattern, ignore_case=ignore_case)
        return hit.fill_null(False).to_numpy(zero_copy_only=False).astype(bool)

    n = len(arr)
    large = pa.types.is_large_string(arr.type)
    if n < 4 * block or not (large or pa.types.is_string(arr.type)) or arr.buffers()[2] is None:
        return search(arr)
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int64 if large else np.int32)
    if offsets[arr.offset + n] - offsets[arr.offset] < _DIRECT_BYTES:
        return search(arr)  # each search compiles the pattern anew: one is cheaper here
    bounds = offsets[arr.offset : arr.offset + n + 1][np.r_[np.arange(0, n, block), n]]
    kind = pa.LargeStringArray if large else pa.StringArray
    blocks = kind.from_buffers(len(bounds) - 1, pa.py_buffer(bounds.copy()), arr.buffers()[2])
    if len(blocks) >= 4 * _SAMPLE_EVERY:
        # where most blocks hold a match (an error storm), the blocks' pass is one too many:
        # one block in _SAMPLE_EVERY tells
        sample = blocks.take(pa.array(np.arange(0, len(blocks), _SAMPLE_EVERY)))
        if search(sample).mean() >= 0.5:
            return search(arr)
    rows = np.flatnonzero(np.repeat(search(blocks), block)[:n])
    mask = np.zeros(n, dtype=bool)
    if len(rows):
        mask[rows] = search(arr.take(pa.array(rows)))
    return mask


def _find_all(joined: str, starts: np.ndarray, kl: str) -> np.ndarray:
    """Positions (in ``starts``) of the NUL-joined parts holding ``kl`` (non-empty, no NUL,
    so that no occurrence spans two parts), each once: every occurrence, then its part."""
    if kl not in joined:
        return np.zeros(0, dtype=np.int64)
    hits, step, find = [], len(kl), joined.find
    pos = find(kl)
    while pos != -1:
        hits.append(pos)
        pos = find(kl, pos + step)
    return np.unique(np.searchsorted(starts, hits, side="right") - 1)


def _joined(parts: list[str]) -> tuple[str, np.ndarray]:
    """``parts`` joined with NUL separators, and where each part starts."""
    lengths = np.fromiter((len(p) + 1 for p in parts), dtype=np.int64, count=len(parts))
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1])) if len(parts) else lengths
    return "\x00".join(parts), starts


class _KeywordMasks:
    """Lazily computed ``keyword -> bool mask`` over the (few) candidate texts.

    A row holds a keyword when its lower-cased text contains the lower-cased keyword. Rather
    than scanning all texts per keyword, the distinct texts are split into whitespace-separated
    words once, and each keyword narrowed down to the texts with the right words:

    * a word of the keyword with whitespace on both sides is a whole word of the text (one
      dictionary look-up);
    * otherwise each word of the keyword lies within some word of the text: a ``str.find``
      pass over the (far shorter) vocabulary of distinct words finds those.

    Each text so found is then checked with ``in``. Keywords with no word at all (or a NUL)
    scan all texts, joined with NUL separators, one row at a time as they always did.
    """

    def __init__(self, texts: list[str | None]) -> None:
        self._lower = [t.lower() if isinstance(t, str) else "" for t in texts]
        self._n = len(self._lower)
        self._cache: dict[str, np.ndarray] = {}
        self._words: dict[str, list[int]] | None = None

    def _index(self) -> None:
        rows_of: dict[str, list[int]] = {}  # distinct text → its rows
        for row, text in enumerate(self._lower):
            got = rows_of.get(text)
            if got is None:
                rows_of[text] = [row]
            else:
                got.append(row)
        self._texts = list(rows_of)
        self._rows_of = list(rows_of.values())
        words: dict[str, list[int]] = {}  # word → the distinct texts holding it
        for i, text in enumerate(self._texts):
            for word in set(text.split()):
                got = words.get(word)
                if got is None:
                    words[word] = [i]
                else:
                    got.append(i)
        self._words = words
        self._vocab = list(words)
        self._vocab_text, self._vocab_starts = _joined(self._vocab)

    def _containing(self, part: str) -> set[int]:
        """Distinct texts with a word that contains ``part`` (no whitespace, no NUL)."""
        words, vocab = self._words, self._vocab
        found: set[int] = set()
        for i in _find_all(self._vocab_text, self._vocab_starts, part).tolist():
            found.update(words[vocab[i]])  # type: ignore[index]
        return found

    def _candidates(self, kl: str) -> list[int] | set[int] | None:
        """Distinct texts that may hold ``kl`` (all that do), or None to scan every text."""
        parts = kl.split()
        if not parts or "\x00" in kl:
            return None
        if self._words is None:
            self._index()
        words = self._words
        whole = parts[1:-1]  # whitespace on both sides
        if len(parts) > 1:
            whole += [p for p, edge in ((parts[0], kl[0]), (parts[-1], kl[-1])) if edge.isspace()]
        elif kl[0].isspace() and kl[-1].isspace():
            whole.append(parts[0])
        if whole:
            return min((words.get(w, []) for w in whole), key=len)  # type: ignore[union-attr]
        return min((self._containing(p) for p in parts), key=len)

    def __getitem__(self, kw: str) -> np.ndarray:
        kl = kw.lower()
        got = self._cache.get(kl)
        if got is not None:
            return got
        mask = np.zeros(self._n, dtype=bool)
        candidates = self._candidates(kl)
        if candidates is None:
            self._scan_all(kl, mask)
        else:
            texts, rows_of = self._texts, self._rows_of
            for i in candidates:
                if kl in texts[i]:
                    mask[rows_of[i]] = True
        self._cache[kl] = mask
        return mask

    def _scan_all(self, kl: str, mask: np.ndarray) -> None:
        joined, starts = _joined(self._lower)
        n = self._n
        pos = joined.find(kl)
        while pos != -1:
            row = int(np.searchsorted(starts, pos, side="right")) - 1
            mask[row] = True
            if row + 1 >= n:
                break
            pos = joined.find(kl, int(starts[row + 1]))


def _empty_findings():
    import pandas as pd

    return pd.DataFrame(
        {
            "row": pd.Series([], dtype="int64"),
            "pattern_id": pd.Series([], dtype="str"),
            "category": pd.Series([], dtype="str"),
            "severity": pd.Series([], dtype="str"),
            "captures": pd.Series([], dtype="str"),
            "blames": pd.Series([], dtype="str"),
            "benign": pd.Series([], dtype="bool"),
            "title": pd.Series([], dtype="str"),
        }
    )


def classify(
    events: pd.DataFrame,
    rules: RuleSet,
    *,
    timeout: float = 0.5,
    prefilter: bool = True,
    max_chars: int = MAX_CHARS,
) -> ClassifyResult:
    """Match every event against the rules; see the module doc for the algorithm.

    ``timeout`` bounds each regex call (seconds). ``prefilter=False`` tries every rule on every
    row (reference behaviour, used by tests). Regexes see at most ``max_chars`` characters of a
    message and of a detail (a multi-megabyte line must not make a bundled rule time out).
    """
    import pandas as pd

    problems: list[str] = []
    n = len(events)
    if "message" not in events.columns:
        problems.append("events have no `message` column; nothing classified")
        return ClassifyResult(_empty_findings(), problems)
    active = [r for r in rules]
    if n == 0 or not active:
        return ClassifyResult(_empty_findings(), problems)

    msg = _column(events, "message", n)
    need_detail = any("detail" in r.fields for r in active)
    det = _column(events, "detail", n) if need_detail else None

    msg_kw = sorted({k.lower() for r in active if "message" in r.fields for k in r.keywords})
    det_kw = sorted({k.lower() for r in active if "detail" in r.fields for k in r.keywords})
    if prefilter:
        if any(r.always_candidate for r in active):
            cand = np.ones(n, dtype=bool)
        else:
            cand = _mask(msg, msg_kw)
            if det is not None and det_kw:
                cand |= _mask(det, det_kw)
        cand_rows = np.flatnonzero(cand)
    else:
        cand_rows = np.arange(n)
    if len(cand_rows) == 0:
        return ClassifyResult(_empty_findings(), problems, 0)

    import pyarrow as pa

    take = pa.array(cand_rows)
    sub_msg = msg.take(take)
    sub_det = det.take(take) if det is not None else None
    m_list = [_cap(t, max_chars) for t in sub_msg.to_pylist()]
    d_list = (
        [_cap(t, max_chars) for t in sub_det.to_pylist()]
        if sub_det is not None
        else [None] * len(cand_rows)
    )
    lvl_list = _column(events, "level", n).take(take).to_pylist()
    src_list = _column(events, "source", n).take(take).to_pylist()
    fmt_list = _column(events, "format", n).take(take).to_pylist()
    # A rule's verdict depends on these five values only: each distinct row is matched once
    # (repeated events, the first and last few of each template, are many among the candidates).
    first_of: dict[tuple, int] = {}
    distinct: list[int] = []  # per candidate row: the index of its distinct row
    for row in zip(m_list, d_list, lvl_list, src_list, fmt_list, strict=True) if prefilter else ():
        got = first_of.get(row)
        if got is None:
            got = first_of[row] = len(first_of)
        distinct.append(got)
    if prefilter and len(first_of) < len(cand_rows):
        same = np.asarray(distinct, dtype=np.int64)
        firsts = np.unique(same, return_index=True)[1]  # the first row of each (in row order)
        m_list, d_list, lvl_list, src_list, fmt_list = (
            [values[i] for i in firsts.tolist()]
            for values in (m_list, d_list, lvl_list, src_list, fmt_list)
        )
        all_rows, cand_rows = cand_rows, cand_rows[firsts]
    else:
        same = None

    # Which candidate rows each rule may match (keyword hit in one of its fields): one plain
    # substring search per keyword over the lower-cased candidate rows (few rows, fast).
    rule_rows: dict[str, np.ndarray] = {}
    if prefilter:
        k = len(cand_rows)
        hits_m = _KeywordMasks(m_list)
        hits_d = _KeywordMasks(d_list) if sub_det is not None else None
        for r in active:
            if r.always_candidate:
                rule_rows[r.id] = np.ones(k, dtype=bool)
                continue
            mask = np.zeros(k, dtype=bool)
            for kw in r.keywords:
                if "message" in r.fields:
                    mask |= hits_m[kw]
                if "detail" in r.fields and hits_d is not None:
                    mask |= hits_d[kw]
            rule_rows[r.id] = mask

    taken = np.zeros(len(cand_rows), dtype=bool)
    winner: list[tuple[int, Rule, dict[str, str]]] = []
    for r in active:
        rows = np.flatnonzero(rule_rows[r.id] & ~taken) if prefilter else np.flatnonzero(~taken)
        for j in rows:
            if not r.conditions_ok(lvl_list[j], src_list[j], fmt_list[j]):
                continue
            try:
                m = r.search(m_list[j], d_list[j], timeout=timeout)
            except TimeoutError:
                problems.append(_timeout_problem(events, r, int(cand_rows[j]), m_list[j], timeout))
                break
            if m is not None:
                taken[j] = True
                winner.append((int(j), r, r.captures_of(m)))

    if same is not None:  # each distinct row's finding, for every candidate row like it
        won = {j: (r, c) for j, r, c in winner}
        winner = [(i, *won[j]) for i, j in enumerate(same.tolist()) if j in won]
        cand_rows = all_rows
    if not winner:
        return ClassifyResult(_empty_findings(), problems, len(cand_rows))
    winner.sort(key=lambda t: t[0])
    json_of: dict[tuple, str] = {}  # many findings capture the same values
    positions = [int(cand_rows[j]) for j, _, _ in winner]
    df = pd.DataFrame(
        {
            "row": pd.Series(positions, dtype="int64"),
            "pattern_id": pd.Series([r.id for _, r, _ in winner], dtype="str"),
            "category": pd.Series([r.category for _, r, _ in winner], dtype="str"),
            "severity": pd.Series([r.severity for _, r, _ in winner], dtype="str"),
            "captures": pd.Series([_json(c, json_of) for _, _, c in winner], dtype="str"),
            "blames": pd.Series([r.blamed(c) for _, r, c in winner], dtype="str"),
            "benign": pd.Series([r.benign for _, r, _ in winner], dtype="bool"),
            "title": pd.Series([r.title for _, r, _ in winner], dtype="str"),
        }
    )
    df.index = events.index[positions]
    return ClassifyResult(df, problems, len(cand_rows))


def _json(captures: dict, memo: dict[tuple, str]) -> str:
    """``json.dumps(captures, sort_keys=True)``, once per distinct captures."""
    try:
        key = tuple(captures.items())
        got = memo.get(key)
    except TypeError:  # an unhashable value
        return json.dumps(captures, sort_keys=True)
    if got is None:
        got = memo[key] = json.dumps(captures, sort_keys=True)
    return got


def _timeout_problem(events, rule: Rule, pos: int, message: str | None, timeout: float) -> str:
    node = _cell(events, "node", pos) or "?"
    line = _cell(events, "line_no", pos)
    where = f"{node} line {line}" if line is not None else f"{node} row {pos}"
    text = (message or "")[:60]
    return (
        f"pattern {rule.id}: timed out ({timeout:g} s) on {where}: {text!r}; "
        "rule disabled for the rest of this batch of files"
    )


def _cell(events, col: str, pos: int):
    if col not in events.columns:
        return None
    v = events[col].iloc[pos]
    try:
        import pandas as pd

        if pd.isna(v):
            return None
    except (TypeError, ValueError):
        pass
    return v
