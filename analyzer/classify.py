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
   backtracking) is reported in ``problems`` and disabled for the rest of the run.

Rules without keywords (none given, none derivable) are tried on every row.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
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


def _mask(arr: pa.Array, keywords: list[str]) -> np.ndarray:
    """Rows of ``arr`` containing any keyword (case-insensitive): one RE2 pass, in parallel
    chunks on large arrays (pyarrow releases the GIL)."""
    import pyarrow.compute as pc

    n = len(arr)
    if not keywords or n == 0:
        return np.zeros(n, dtype=bool)
    pattern = "|".join(_re2_escape(k) for k in keywords)

    def run(chunk: pa.Array) -> np.ndarray:
        res = pc.match_substring_regex(chunk, pattern, ignore_case=True)
        return res.fill_null(False).to_numpy(zero_copy_only=False)

    workers = min(4, os.cpu_count() or 1)
    if workers < 2 or n < _PARALLEL_ROWS:
        return run(arr)
    from concurrent.futures import ThreadPoolExecutor

    step = -(-n // workers)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        parts = list(pool.map(lambda i: run(arr.slice(i, step)), range(0, n, step)))
    return np.concatenate(parts)


class _KeywordMasks:
    """Lazily computed ``keyword -> bool mask`` over the (few) candidate texts.

    The lower-cased texts are joined with NUL separators (keywords never contain NUL), so one
    ``str.find`` scan per keyword finds every row holding it; each hit skips to the next row.
    """

    def __init__(self, texts: list[str | None]) -> None:
        parts = [t.lower() if isinstance(t, str) else "" for t in texts]
        self._n = len(parts)
        self._joined = "\x00".join(parts)
        lengths = np.fromiter((len(p) + 1 for p in parts), dtype=np.int64, count=self._n)
        self._starts = np.concatenate(([0], np.cumsum(lengths)[:-1])) if self._n else lengths
        self._cache: dict[str, np.ndarray] = {}

    def __getitem__(self, kw: str) -> np.ndarray:
        kl = kw.lower()
        got = self._cache.get(kl)
        if got is not None:
            return got
        mask = np.zeros(self._n, dtype=bool)
        joined, starts, n = self._joined, self._starts, self._n
        pos = joined.find(kl)
        while pos != -1:
            row = int(np.searchsorted(starts, pos, side="right")) - 1
            mask[row] = True
            if row + 1 >= n:
                break
            pos = joined.find(kl, int(starts[row + 1]))
        self._cache[kl] = mask
        return mask


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

    if not winner:
        return ClassifyResult(_empty_findings(), problems, len(cand_rows))
    winner.sort(key=lambda t: t[0])
    positions = [int(cand_rows[j]) for j, _, _ in winner]
    df = pd.DataFrame(
        {
            "row": pd.Series(positions, dtype="int64"),
            "pattern_id": pd.Series([r.id for _, r, _ in winner], dtype="str"),
            "category": pd.Series([r.category for _, r, _ in winner], dtype="str"),
            "severity": pd.Series([r.severity for _, r, _ in winner], dtype="str"),
            "captures": pd.Series(
                [json.dumps(c, sort_keys=True) for _, _, c in winner], dtype="str"
            ),
            "blames": pd.Series([r.blamed(c) for _, r, c in winner], dtype="str"),
            "benign": pd.Series([r.benign for _, r, _ in winner], dtype="bool"),
            "title": pd.Series([r.title for _, r, _ in winner], dtype="str"),
        }
    )
    df.index = events.index[positions]
    return ClassifyResult(df, problems, len(cand_rows))


def _timeout_problem(events, rule: Rule, pos: int, message: str | None, timeout: float) -> str:
    node = _cell(events, "node", pos) or "?"
    line = _cell(events, "line_no", pos)
    where = f"{node} line {line}" if line is not None else f"{node} row {pos}"
    text = (message or "")[:60]
    return (
        f"pattern {rule.id}: timed out ({timeout:g} s) on {where}: {text!r}; "
        "rule disabled for the rest of the run"
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
