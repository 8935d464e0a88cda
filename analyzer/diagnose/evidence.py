"""The evidence lines of a verdict: the root's own lines, who blamed it, victims."""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

from analyzer.diagnose.case import Candidate, Case
from analyzer.diagnose.clocks import ClockEstimate
from analyzer.diagnose.common import (
    SHORT_MESSAGE,
    _clip,
    _dict_rows,
    _human_duration,
    _node_order,
    _records,
    _rule,
    _text,
    _utc,
    _utc_one,
)
from analyzer.diagnose.stall import UNRESPONSIVE
from analyzer.identity import task_name
from analyzer.model import Evidence


def _evidence_text(event: dict | pd.Series) -> str:
    """The line's message; a short one with its continuation lines (``Example stragglers:``)."""
    message = _text(event.get("message"))
    full = _text(event.get("full_text"))
    if len(message.strip()) < SHORT_MESSAGE and len(full) > len(message):
        return _clip(full)
    return _clip(message)


def _evidence_line(
    node: str, event: dict | pd.Series | None, why: str, clock: ClockEstimate
) -> Evidence | None:
    if event is None:
        return None
    get = event.get
    return Evidence(
        node=node,
        time=clock.correct(node, _utc_one(get("ts"))) if get("ts") is not None else None,
        file=get("file"),
        line_no=int(get("line_no"))
        if get("line_no") is not None and not pd.isna(get("line_no"))
        else None,
        text=_evidence_text(event),
        why=why,
    )


def _root_evidence(node: str, c: Candidate, category: str, ev: Case, rules: Any) -> list[Evidence]:
    f = ev.facts.get(node)
    lines: list[Evidence | None] = []
    if c.intrinsic is not None:
        rule = _rule(rules, c.intrinsic.get("pattern_id"))
        title = getattr(rule, "title", None) or c.intrinsic["category"]
        lines.append(
            _evidence_line(node, c.intrinsic, f"{node}'s own first error: {title}", ev.clock)
        )
    if f is not None and node in ev.silent:
        lines.append(
            _evidence_line(
                node,
                f.last_line,
                f"{node}'s last line: its log ends here with no error and no shutdown message, "
                f"while its peers logged {_human_duration(ev.silent[node])} longer"
                + (
                    "; they timed out waiting for it (a hang, not a closed connection)"
                    if category == "deadline_exceeded"
                    else ""
                ),
                ev.clock,
            )
        )
    lines.extend(_quiet_end_evidence(node, f, ev))
    if f is not None and node in ev.unexplained_exits():
        why = f"{node}'s log ends with an uncaught exception (no rule knows it): it died of it"
        lines.append(_evidence_line(node, f.last_line, why, ev.clock))
    if f is not None and f.exit_line and f.exit_line is not f.last_line:
        lines.append(
            _evidence_line(node, f.exit_line, f"how {node} exited: {f.exit_info}", ev.clock)
        )
    twin = ev.consistency.claims.get(node) if f is not None and f.missing else None
    if category == "cluster_spec_mismatch" and twin and (g := ev.facts.get(twin)) and g.twins:
        why = next(m for m in ev.consistency.messages if f"and {node} left none" in m)
        lines.append(_evidence_line(twin, g.tf_config_line, why, ev.clock))
    elif category == "cluster_spec_mismatch" and f is not None:
        why = next(
            (m for m in ev.consistency.messages if m.startswith(node)), "its cluster spec differs"
        )
        lines.append(_evidence_line(node, f.tf_config_line, why, ev.clock))
        usual = sorted(ev.consistency.majority_nodes or [])
        if usual and (other := ev.facts.get(usual[0])):
            lines.append(
                _evidence_line(
                    usual[0],
                    other.tf_config_line,
                    f"the cluster spec {len(usual)} node(s) agree on",
                    ev.clock,
                )
            )
    if category == "version_mismatch" and f is not None:
        odd = ev.consistency.version_outliers.get(node, "")
        for name, line in f.version_lines.items():
            if odd and not odd.startswith(name):
                continue
            lines.append(
                _evidence_line(node, line, f"{node} runs {name} {f.versions[name]}", ev.clock)
            )
    return [e for e in lines if e is not None]


def _blame_evidence(node: str, ev: Case, rules: Any, findings: pd.DataFrame) -> list[Evidence]:
    if ev.blames.empty:
        return []
    against = ev.blames[(ev.blames["blamed"] == node) & ~ev.blames["self"]]
    against = against.assign(ts=_utc(against["ts"])).sort_values("ts").drop_duplicates("victim")
    out = []
    found = _dict_rows(findings.loc[against["row"].tolist()]) if not against.empty else []
    for b, finding in zip(_records(against), found, strict=True):
        rule = _rule(rules, b.pattern_id)
        title = getattr(rule, "title", None) or finding["category"]
        why = f"{b.victim} names {task_name(node) or node} ({b.how}): {title}"
        out.append(_evidence_line(b.victim, finding, why, ev.clock))
    return [e for e in out if e is not None]


def _missing_evidence(node: str, ev: Case) -> list[Evidence]:
    """For a root without a log: the peer's cluster spec that names it."""
    f = ev.facts.get(node)
    if f is None or not f.missing:
        return []
    job, _, index = node.partition(":")
    for peer in sorted(ev.facts, key=_node_order):
        p = ev.facts[peer]
        addrs = (p.cluster or {}).get(job, [])
        if p.tf_config_line and index.isdigit() and int(index) < len(addrs):
            why = (
                f"{peer}'s cluster spec names {task_name(node)} at {addrs[int(index)]}, "
                "but no log of that task was found"
            )
            line = _evidence_line(peer, p.tf_config_line, why, ev.clock)
            return [line] if line else []
    return []


def _blocked_evidence(ev: Case, rules: Any) -> list[Evidence]:
    """Nodes whose log ends still waiting at start-up: their last waiting line."""
    out = []
    for node, row in sorted(ev.blocked.items()):
        if ev.findings is None or row not in ev.findings.index:
            continue
        finding = ev.findings.loc[row]
        title = getattr(_rule(rules, finding.get("pattern_id")), "title", None) or "waiting"
        why = f"{node}'s log ends still waiting at start-up: {title}"
        out.append(_evidence_line(node, finding, why, ev.clock))
    return [e for e in out if e is not None]


def _victim_evidence(root: str, ev: Case, already: set[str]) -> list[Evidence]:
    out = []
    firsts = ev.first_errors
    for row_id, row in zip(firsts.index.tolist(), _dict_rows(firsts), strict=True):
        node = str(row["node"])
        if node == root or node in already:
            continue
        if row_id in ev.intrinsic.index:
            why = f"{node} failed the same way ({row['category']}), but later than {root}"
        else:
            why = f"{node}'s first error ({row['category']}) comes after {root}'s: a symptom"
        out.append(_evidence_line(node, row, why, ev.clock))
        if len(out) == 2:  # (an evidence line of a row is never None)
            break
    return [e for e in out if e is not None][:2]


def _outside_line(ev: Case, keep: Any, why: str) -> Evidence | None:
    """The first line in which an outside party ended the job that ``keep(text)`` accepts."""
    for text, row in ev.end_lines.items():
        if keep(text):
            return _evidence_line(str(row.get("node")), row, why, ev.clock)
    return None


def _quiet_end_evidence(node: str, f: Any, ev: Case) -> list[Evidence | None]:
    """How a task whose log ends with no error went: stuck when the job was stopped, gone
    before the stop, or cut off while its peers trained on (see :class:`.Case`)."""
    out: list[Evidence | None] = []
    if node == ev.stuck_waited_on():
        why = f"{node} did not exit on the SIGTERM that ended the job: stopped or stuck"
        out.append(
            _outside_line(ev, lambda t: node in t and re.search(UNRESPONSIVE, t) is not None, why)
        )
    if f is None:
        return out
    last = f"{node}'s last line: its log ends here with no error and no goodbye"
    if node in ev.never_finished():
        out.append(_evidence_line(node, f.last_line, last, ev.clock))
        done = [
            n
            for n in sorted(ev.facts, key=_node_order)
            if ev.phases.finished(n) is not None and n != node
        ]
        if done and (g := ev.facts[done[0]].last_line) is not None:
            out.append(_evidence_line(done[0], g, f"{done[0]} trained on to the end", ev.clock))
    if node in ev.cut_off():
        where = "mid-training" if ev.phases.furthest(node) == "training" else "mid-run"
        why = f"{node}'s last line: its log ends here, {where}, with no goodbye"
        out.append(_evidence_line(node, f.last_line, why, ev.clock))
    if node in ev.restarted():
        why = f"{node}'s first run ends here with no goodbye; its process then started again"
        out.append(_evidence_line(node, ev.restarted()[node], why, ev.clock))
    if node in ev.gone_before_stop():
        out.append(_evidence_line(node, f.last_line, last, ev.clock))
        why = f"the stop that ended the job names the other tasks, not {node}"
        out.append(_outside_line(ev, lambda t: any(n in t for n in ev.told_to_stop), why))
    return out
