"""Excerpts: one node's lines and no peers — a paste in a ticket, ``kubectl logs pod | tfdiag``.

With a single node's log the cross-node reasoning of the other steps has nothing to weigh: no
peer says who stopped first, no clock to compare, and a peer that the lines name is not "missing"
in any meaningful sense — its log simply was not pasted. So the verdict of an excerpt is built
from the lines alone, and says only what they support:

- **The category** is that of the node's strongest finding. A specific cause (out of memory, a
  version or dtype mismatch, a port in use, a storage error, ...) outranks the generic signs a
  failure leaves behind (a crash or abort, a lost connection, a deadline, a heartbeat timeout),
  which are read in the order they were logged; a start-up wait that timed out (an error) is a
  specific cause, one that only says it still waits counts only when nothing else failed.
  A finding the job went on past — the lines after it report training steps (at least
  :data:`WENT_ON` of them) — did not stop it: a wait that ended, an allocation that was
  retried, a warning. It does not count.
  Warnings count only when no error-level finding exists. The general signals of
  ``patterns/fallback.yaml`` (a status code or exception class with the words of its cause, an
  exit code, a timeout: rule ids ``fallback.*``) that name a specific cause count after the
  specific rules' specific causes; their generic signs join the others in the order logged;
  their broad words (a lost connection, a timeout, an exit) do not count on a line logged at
  INFO or DEBUG. A log that ends with an exception no rule knows is a crash, and the summary
  quotes that exception.
- **The node** is the task the chosen line blames, if it names one (``/job:ps/replica:0/task:0``,
  ``10.0.0.5:2222``): it is reported as ``missing`` and the summary says that the cause is on
  that task, whose log is not here. Otherwise, if the lines show the node's own failure (out of
  memory, a crash, a mismatch, ...), the verdict names that node; if they show only what a
  peer's failure leaves behind (a lost connection, a deadline, a wait) and name no peer, the
  verdict names no node: one node's lines cannot tell which task failed first.
- A log that merely ends is not a silent death: an excerpt always ends somewhere.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

import pandas as pd

from analyzer.diagnose.case import Case
from analyzer.diagnose.common import ERROR_SEVERITIES, _clip, _rule
from analyzer.diagnose.evidence import _evidence_line
from analyzer.diagnose.facts import Facts
from analyzer.diagnose.phrases import CATEGORY_PHRASE, DEFAULT_REMEDIATION
from analyzer.diagnose.verdict import _finish, _healthy, _statuses
from analyzer.identity import task_name
from analyzer.model import Diagnosis, Evidence, RootCause

#: What a failure leaves behind wherever it started: these yield to any specific cause.
GENERIC = frozenset(
    {"node_crash", "connection_unavailable", "deadline_exceeded", "coordination_failure"}
)
#: Waiting at start-up: the verdict only when nothing failed.
WAITS = frozenset({"session_blocked"})
_TASK_RE = re.compile(r"/job:([\w-]+)/replica:\d+/task:(\d+)")
#: Rule ids of the general signals (patterns/fallback.yaml): they yield to specific rules.
FALLBACK_PREFIX = "fallback."
#: Progress reports after a finding that show the job went on past it (it did not stop it).
WENT_ON = 3
#: Signs of some other task's failure: without a named peer, the verdict names no node.
ELSEWHERE = frozenset(
    {"connection_unavailable", "deadline_exceeded", "coordination_failure", "session_blocked"}
)


def is_excerpt(ev: Case) -> bool:
    """One node's log and no peer's: an excerpt (named peers without a log do not count)."""
    return sum(1 for f in ev.facts.values() if not f.missing) == 1


def _order(frame: pd.DataFrame) -> pd.DataFrame:
    """The lines in the order they were logged (excerpts often carry no timestamps)."""
    keys = [c for c in ("file", "line_no") if c in frame.columns]
    return frame.sort_values(keys, kind="stable") if keys else frame


def _choose(node: str, ev: Case) -> tuple[pd.Series | None, str]:
    """The node's strongest finding and why it was chosen."""
    findings = ev.findings
    if findings is None or findings.empty:
        return None, ""
    own = findings[
        (findings["node"].astype(str) == node)
        & ~findings["benign"].fillna(False).astype(bool)
        & findings["category"].notna()
        & (findings["category"] != "none")
    ]
    own = _without_echoes(own, findings[findings["node"].astype(str) == node])
    own = _not_gone_past(own, node, ev)
    if "level" in own.columns:  # a broad general word (a timeout...) on an INFO line is not
        broad = own["pattern_id"].astype(str).str.startswith(FALLBACK_PREFIX) & own[
            "category"
        ].isin(GENERIC)
        own = own[~(broad & own["level"].isin(("DEBUG", "INFO")).fillna(False))]
    errors = own[own["severity"].isin(ERROR_SEVERITIES)]
    warnings = own[own["severity"] == "warning"]
    pool, level = (errors, "error") if not errors.empty else (warnings, "warning")
    if pool.empty:
        return None, ""
    pool = _order(_with_what(pool))
    # a start-up wait that failed outright (a barrier or reservation timed out) is the cause;
    # one that only logs that it still waits yields to anything that failed
    not_specific = GENERIC | WAITS if level == "warning" else GENERIC
    general = pool["pattern_id"].astype(str).str.startswith(FALLBACK_PREFIX)
    specific = ~pool["category"].isin(not_specific)
    generic = pool["category"].isin(GENERIC)
    tiers = (
        (specific & ~general, f"first {level} with a specific cause"),
        (specific & general, f"first {level} with a general sign of a specific cause"),
        (generic, f"first {level} (no specific cause among its lines)"),
    )
    for mask, why in tiers:
        if mask.any():
            return pool[mask].iloc[0], why
    return pool.iloc[0], "start-up wait (nothing else failed)"


def _without_echoes(own: pd.DataFrame, node_findings: pd.DataFrame) -> pd.DataFrame:
    """Drop the lines that only repeat a harmless record's exception, or that continue a
    wrapped exception whose cause a rule found on its next line.

    - A logger that is given an exception prints its message ending with the exception's
      text (``WARN ...: FAILED ...: java.net.BindException: Address already in use``) and then
      the exception again with its stack (``java.net.BindException: Address already in use``).
      When a benign rule claimed the record, the echo on the next line is the same record.
    - An exception whose message a terminal wrapped or a paste split (``RuntimeError: [enforce
      fail at .../device.cc:84]`` then ``  ifa != nullptr. Unable to find address for: ...``):
      an unknown exception's bare crash (``fallback.python.exception``) steps aside for the
      cause a rule found on the indented line right after it.
    """
    needed = {"line_no", "message", "pattern_id"}
    if own.empty or not needed <= set(node_findings.columns):
        return own
    file_col = "file" if "file" in node_findings.columns else None

    def key(row: pd.Series, delta: int = 0) -> tuple[Any, Any]:
        return (row[file_col] if file_col else None, row["line_no"] + delta)

    benign = node_findings[node_findings["benign"].fillna(False).astype(bool)]
    said = {key(row): str(row["message"]) for _, row in benign.iterrows()}
    specific_next = {
        key(row)
        for _, row in own.iterrows()
        if not str(row["pattern_id"]).startswith(FALLBACK_PREFIX)
        and str(row["message"])[:1] in (" ", "\t")
    }
    drop = []
    for idx, row in own.iterrows():
        if pd.isna(row["line_no"]):
            continue
        text = str(row["message"]).strip()
        before = said.get(key(row, -1))
        echo = before is not None and len(text) >= 20 and before.rstrip().endswith(text)
        wrapped = row["pattern_id"] == "fallback.python.exception" and key(row, 1) in specific_next
        if echo or wrapped:
            drop.append(idx)
    return own.drop(index=drop) if drop else own


def _not_gone_past(own: pd.DataFrame, node: str, ev: Case) -> pd.DataFrame:
    """``own`` less the findings the job went on past: at least :data:`WENT_ON` progress
    reports (training steps, :mod:`analyzer.progress`) of the node come after them in the
    same file (an excerpt is read in line order: it often carries no times)."""
    progress = ev._memo.get("progress")
    needed = {"file", "line_no"}
    if (
        own.empty
        or progress is None
        or progress.empty
        or not needed <= set(own.columns)
        or not needed <= set(progress.columns)
    ):
        return own
    reports = progress[progress["node"].astype(str) == node]
    if reports.empty:
        return own
    after = []
    for file, line in zip(own["file"].tolist(), own["line_no"].tolist(), strict=True):
        lines = reports.loc[reports["file"] == file, "line_no"]
        after.append(int((lines > line).sum()) if not pd.isna(line) else 0)
    gone_past = pd.Series(after, index=own.index) >= WENT_ON
    return own[~gone_past] if gone_past.any() else own


def _with_what(pool: pd.DataFrame) -> pd.DataFrame:
    """An uncaught C++ exception's abort read with its ``what():`` line.

    libstdc++'s verbose terminate handler prints ``terminate called after throwing an instance
    of 'T'`` and then ``  what():  <message>`` on the next line: the abort is how the task died,
    the message is why. When a rule found a cause on that what() line, the abort's own finding
    (a bare crash) steps aside for it, so the crash is read as what the message says."""
    needed = {"pattern_id", "line_no", "message"}
    if pool.empty or not needed <= set(pool.columns):
        return pool
    aborts = pool[pool["pattern_id"].astype(str) == "process.terminate_called"]
    if aborts.empty:
        return pool
    what = pool[pool["message"].astype(str).str.lstrip().str.startswith("what():")]
    if what.empty:
        return pool
    file_col = "file" if "file" in pool.columns else None
    seen = {(row[file_col] if file_col else None, row["line_no"]) for _, row in what.iterrows()}
    drop = [
        idx
        for idx, row in aborts.iterrows()
        if not pd.isna(row["line_no"])
        and (row[file_col] if file_col else None, row["line_no"] + 1) in seen
    ]
    return pool.drop(index=drop) if drop else pool


def _blamed(row_id: Any, node: str, ev: Case) -> tuple[str | None, str | None]:
    """(peer node id, its address) that the chosen line names, if any."""
    hits = ev.blames if ev.blames.empty else ev.blames[(ev.blames["row"] == row_id)]
    if not hits.empty:
        hits = hits[~hits["self"] & (hits["blamed"].astype(str) != node)]
    if hits.empty:
        return _named_task(row_id, node, ev), None
    peer = str(hits.iloc[0]["blamed"])
    address = None
    captures = ev.findings.loc[row_id].get("captures") if ev.findings is not None else None
    try:
        values = json.loads(captures) if isinstance(captures, str) and captures else {}
    except ValueError:
        values = {}
    if isinstance(values, dict):
        address = values.get("peer_address")
    return peer, address


def _named_task(row_id: Any, node: str, ev: Case) -> str | None:
    """The one other task a symptom's line names (``... worker /job:ps/replica:0/task:0 returned
    error: Unavailable``), when no rule's capture said whom it blames."""
    if ev.findings is None or row_id not in ev.findings.index:
        return None
    row = ev.findings.loc[row_id]
    if row.get("category") not in ELSEWHERE:
        return None
    text = " ".join(str(row.get(c) or "") for c in ("message", "detail"))
    named = {f"{j}:{i}" for j, i in _TASK_RE.findall(text)} - {node}
    return named.pop() if len(named) == 1 else None


def excerpt_diagnosis(ev: Case, rules: Any, notes: list[str]) -> Diagnosis:
    """The verdict of one node's lines (see the module doc)."""
    node = next(n for n, f in ev.facts.items() if not f.missing)
    f = ev.facts[node]
    notes.append(
        f"Only {node}'s lines are here (an excerpt): its peers' logs are not, so the verdict says "
        "what these lines show and which task they point at, not which node failed first."
    )
    chosen, why_chosen = _choose(node, ev)
    if node in ev.consistency.spec_outliers and (
        (chosen is None and f.uncaught)
        or (
            chosen is not None
            and (
                chosen["category"] in GENERIC
                or str(chosen.get("pattern_id")).startswith(FALLBACK_PREFIX)
            )
        )
    ):
        # its own TF_CONFIG does not hold its own task: what it then died of follows from that
        return _own_spec_wrong(node, ev, notes)
    if chosen is None and f.uncaught:
        return _crashed_of_exception(node, f, ev, notes)
    if chosen is None:
        return _finish(_healthy(ev, notes), ev, _statuses(None, ev, None), notes)
    category = str(chosen["category"])
    pattern_id = chosen.get("pattern_id")
    rule = _rule(rules, pattern_id)
    title = getattr(rule, "title", None) or category
    general = str(pattern_id).startswith(FALLBACK_PREFIX)
    if general:  # a general sign says little: quote the line
        said = _clip(chosen.get("message"), 160)
        title = f"{title}: {said}" if said else title
    peer, address = _blamed(chosen.name, node, ev)
    culprit: str | None = None
    who = f"{node} ({task_name(node)})" if task_name(node) else node
    evidence: list[Evidence | None] = [
        _evidence_line(node, chosen, f"{node}'s {why_chosen}: {title}", ev.clock)
    ]
    if peer is not None:
        target = task_name(peer) or peer
        at = f" at {address}" if address else ""
        summary = (
            f"{who}: {title} — the lines point at {target}{at}; the cause is on that task, "
            f"whose log is not here [{category}]."
        )
        statuses = {node: ("victim", None), peer: ("missing", None)}
        facts = dict(ev.facts)
        facts.setdefault(peer, Facts(node=peer, missing=True))
        ev = replace(ev, facts=facts)
        notes.append(
            f"Verdict (excerpt): {node}'s lines name {target}{at}; that task is where to look "
            f"({category}, rule {pattern_id})."
        )
    elif category in ELSEWHERE:
        summary = (
            f"{who} {CATEGORY_PHRASE.get(category, category)}: {title} [{category}]; the lines "
            "name no peer and no other task's log is here, so where it started cannot be told."
        )
        statuses = {node: ("victim", None)}
        notes.append(f"Verdict (excerpt): {node}'s lines show {category} but name no peer.")
    else:
        culprit = node
        summary = (
            f"{who} {CATEGORY_PHRASE.get(category, category)}: {title} [{category}]; "
            "only this node's lines are here, so whether it failed first cannot be told."
        )
        statuses = {node: ("failed", None)}
        notes.append(f"Verdict (excerpt): {node}'s own lines show {category} (rule {pattern_id}).")
    if f.exit_line and f.exit_info:
        evidence.append(
            _evidence_line(node, f.exit_line, f"how {node} exited: {f.exit_info}", ev.clock)
        )
    if peer is not None:
        culprit = peer
    root = RootCause(
        node=culprit,
        task=task_name(culprit) if culprit else None,
        category=category,
        confidence=(0.5 if peer else 0.6) - (0.15 if general else 0.0),
        time=chosen.get("ts") if not pd.isna(chosen.get("ts")) else None,
        summary=summary,
        evidence=[e for e in evidence if e is not None],
        pattern_id=pattern_id,
        remediation=(getattr(rule, "remediation", "") or "").strip()
        or DEFAULT_REMEDIATION.get(category),
        ambiguity="one node's lines only: the other tasks' logs would tell which failed first",
    )
    return _finish(root, ev, statuses, notes)


def _crashed_of_exception(node: str, f: Facts, ev: Case, notes: list[str]) -> Diagnosis:
    """No rule knows the error, but the lines end with a traceback: say its exception."""
    exception = _clip(str(f.exit_info or (f.last_line or {}).get("message") or "an exception"))
    notes.append(f"Verdict (excerpt): {node}'s lines end with an exception no rule knows.")
    why = f"{node}'s lines end with an uncaught exception: {exception}"
    return _its_own(
        node,
        ev,
        notes,
        ("node_crash", 0.3),
        f"died of an exception no rule knows: {exception} [node_crash].",
        (f.last_line, why),
        "one node's lines only, and no rule recognises the error",
    )


def _own_spec_wrong(node: str, ev: Case, notes: list[str]) -> Diagnosis:
    """The node's own cluster spec does not hold its own task (``task: chief`` in a cluster of
    workers only, an index past its job's end), and all it then logged is a crash, a lost
    connection or an exception no rule knows: the spec is the cause those follow from."""
    said = next(
        (m for m in ev.consistency.messages if m.startswith(f"{node}'s ")),
        f"{node}'s cluster spec does not hold its own task.",
    )
    notes.append(f"Verdict (excerpt): {said}")
    return _its_own(
        node,
        ev,
        notes,
        ("cluster_spec_mismatch", 0.5),
        f"was given a cluster spec that does not hold its own task: {said} What it logged after "
        "that follows from it [cluster_spec_mismatch].",
        (ev.facts[node].tf_config_line, said),
        "one node's lines only: the other tasks' specs would tell whose is wrong",
    )


def _its_own(
    node: str,
    ev: Case,
    notes: list[str],
    category: tuple[str, float],
    said: str,
    line: tuple[Any, str],
    ambiguity: str,
) -> Diagnosis:
    """The verdict that the excerpt's node failed of ``category`` (with its confidence): the
    summary is the node and ``said``, the evidence the line and why it counts."""
    who = f"{node} ({task_name(node)})" if task_name(node) else node
    evidence = _evidence_line(node, line[0], line[1], ev.clock) if line[0] else None
    root = RootCause(
        node=node,
        task=task_name(node),
        category=category[0],
        confidence=category[1],
        time=None,
        summary=f"{who} {said}",
        evidence=[evidence] if evidence else [],
        remediation=DEFAULT_REMEDIATION.get(category[0]),
        ambiguity=ambiguity,
    )
    return _finish(root, ev, {node: ("failed", None)}, notes)
