"""Hang: the job stopped making progress while its processes stayed alive.

Signal (job level): no node reported a new step for much longer than the usual interval
between its reports (``HANG_FACTOR`` times, at least ``HANG_MIN_S``) before the logs end, no
node said its training finished, and nothing failed with an error of its own before that: the
errors there are (if any) those of the end, when an outside timeout killed the job.

Which node (one point list, best first):

- **it stopped first**: its last step came well before its peers' last step (they went on
  without it for a while: asynchronous training);
- **its peers named it**: warnings or errors after the stall, by peers, naming it (a
  collective, an RPC or a barrier waiting on it);
- **it went quiet**: its log ends at the stall while its peers kept logging (their waits,
  heartbeats) until the end;
- **the one they all wait on**: every node that reports progress stopped at the same step
  time, and exactly one task serves them all without reporting progress (a parameter server);
- **it diverges from the baseline** (``--baseline``): its log shows lines the good run never
  had, the earliest of all nodes.

If nothing points at one node, the verdict still says ``hang`` (the job's failure), names the
node whose progress stopped first, and says that it could not tell.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from analyzer.diagnose.common import _human_duration, _node_order, _utc
from analyzer.diagnose.stall import (
    Stall,
    errors_before,
    evidence_row,
    job_end,
    node_pace,
    outside_end,
)

if TYPE_CHECKING:
    from analyzer.diagnose.case import Case

HANG_MIN_S = 20.0  #: a stall shorter than this is no hang, whatever the step interval
HANG_FACTOR = 10.0  #: ... nor one shorter than this many usual intervals between reports
LAG_FACTOR = 3.0  #: a node stopped first when its last step came this many intervals earlier
QUIET_FACTOR = 0.5  #: a node went quiet when its peers logged this share of the stall after it


def detect_hang(
    progress: pd.DataFrame, ev: Case, timeline: pd.DataFrame, comparison: Any = None
) -> Stall | None:
    """A :class:`Stall` of category ``hang`` when the run shows one (module doc), else None."""
    pace = node_pace(progress)
    pace = pace[pace["last_advance"].notna()] if not pace.empty else pace
    if pace.empty:
        return None
    last_advance = {
        n: ev.clock.correct(n, _utc(pd.Series([t])).iloc[0])
        for n, t in pace["last_advance"].items()
    }
    stop = max(last_advance.values())  # the last time any node made progress
    end = job_end(ev)
    if end is None:
        return None
    interval = float(np.nanmedian(pace["interval"])) if pace["interval"].notna().any() else 0.0
    threshold = max(HANG_MIN_S, HANG_FACTOR * interval)
    stalled = (end - stop).total_seconds()
    if stalled < threshold:
        return None
    reporting = list(pace.index)
    if any(ev.phases.finished(n) is not None for n in reporting):
        return None  # training finished: what came after is not a stall of training
    if not errors_before(ev, stop + pd.Timedelta(seconds=threshold)).empty:
        return None  # something failed with an error of its own first
    if ev.blocked:
        return None  # start-up never finished: session_blocked, not a hang
    points: dict[str, float] = {}
    reasons: dict[str, list[str]] = {}
    rows: dict[str, list[tuple[Any, str]]] = {}

    def add(node: str, p: float, why: str, row: Any = None, row_why: str = "") -> None:
        points[node] = points.get(node, 0.0) + p
        reasons.setdefault(node, []).append(why)
        if row is not None:
            rows.setdefault(node, []).append((row, row_why or why))

    last_row = _last_report_rows(progress)
    # 1. stopped first: its last step well before the last step of its peers
    lag_min = max(LAG_FACTOR * interval, 1.0)
    for node, t in last_advance.items():
        ahead = [u for n, u in last_advance.items() if n != node]
        if ahead and (max(ahead) - t).total_seconds() >= lag_min:
            lead = (max(ahead) - t).total_seconds()
            add(
                node,
                3.0 + min(lead / max(threshold, 1.0), 1.0),
                f"its last step ({pace.loc[node, 'last_step']:g}) came {_human_duration(lead)} "
                "before its peers' last step: it stopped first",
                last_row.get(node),
                "its last progress report",
            )
    # 2. peers named it after the stall (waits, RPCs, collectives)
    blames = ev.blames
    if not blames.empty:
        after = blames[
            ~blames["self"].to_numpy(dtype=bool) & (_utc(blames["ts"]) >= stop).to_numpy()
        ]
        for node, group in after.groupby("blamed"):
            node = str(node)
            if node not in ev.facts:
                continue
            victims = sorted(set(map(str, group["victim"])) - {node}, key=_node_order)
            if victims:
                add(
                    node,
                    2.0 + min(len(victims) - 1, 2),
                    f"after the stall {', '.join(victims)} named it in their waits",
                    group.iloc[0]["row"],
                    f"a peer waiting on {node}",
                )
    # 3. went quiet: its log ends at the stall while its peers kept logging
    lasts = {
        n: ev.clock.correct(n, f.last_time)
        for n, f in ev.facts.items()
        if not f.missing and f.last_time is not None and not pd.isna(f.last_time)
    }
    kept_on = [n for n, t in lasts.items() if (t - stop).total_seconds() >= QUIET_FACTOR * stalled]
    for node, t in lasts.items():
        if node in kept_on or t < stop - pd.Timedelta(seconds=threshold):
            continue  # logged on, or had stopped logging long before (a quiet server)
        if kept_on and set(kept_on) - {node}:
            add(
                node,
                2.0,
                f"its log ends {_human_duration((end - t).total_seconds())} before the job's "
                f"end, at the stall, while {', '.join(sorted(set(kept_on) - {node}, key=_node_order))} "
                "kept logging",
                ev.facts[node].tail_rows[-1] if ev.facts[node].tail_rows else None,
                "its last line: nothing after it",
            )
    # 4. the one they all wait on: every reporting node stopped together; one server
    together = (max(last_advance.values()) - min(last_advance.values())).total_seconds() < lag_min
    servers = [
        n
        for n, f in ev.facts.items()
        if n not in last_advance and not f.missing and n.partition(":")[0] == "ps"
    ]
    if together and len(servers) == 1:
        add(
            servers[0],
            1.5,
            f"every node that reports progress ({', '.join(sorted(last_advance, key=_node_order))}) "
            f"stopped at the same time, and {servers[0]} is the one task serving them all",
            ev.facts[servers[0]].tail_rows[-1] if ev.facts[servers[0]].tail_rows else None,
            "the server's last line",
        )
    # 5. the baseline: the node that diverges from the good run first
    if comparison is not None and comparison.first_new in ev.facts:
        add(
            comparison.first_new,
            1.0,
            "its log is the first to diverge from the baseline run",
        )
    ranked = sorted(
        points,
        key=lambda n: (-points[n], last_advance.get(n, stop), _node_order(n)),
    )
    first_stop = min(last_advance, key=lambda n: (last_advance[n], _node_order(n)))
    node = ranked[0] if ranked else first_stop
    runner = ranked[1] if len(ranked) > 1 else None
    score = points.get(node, 0.0)
    confidence = 1 - 0.5 ** (max(score, 0.5) / 2)
    ambiguity = None
    if not ranked:
        ambiguity = (
            "every node stopped at the same step and none of them named another: the logs do not "
            f"tell which node hung first ({node} is the one whose last step came first)"
        )
        confidence = 0.35
    elif runner is not None and points[node] - points[runner] < 2:
        confidence *= 0.7
        ambiguity = f"{runner} is almost as likely ({'; '.join(reasons[runner])})"
    step = pace.loc[node, "last_step"] if node in pace.index else None
    at = last_advance.get(node, stop)
    victims = sorted(
        (n for n in ev.facts if n != node and not ev.facts[n].missing), key=_node_order
    )
    how = outside_end(ev, stop)
    evidence = [evidence_row(ev, timeline, r, why) for r, why in rows.get(node, [])]
    for peer in [n for n in last_advance if n != node][:2]:
        evidence.append(
            evidence_row(ev, timeline, last_row.get(peer), f"{peer}'s last progress report")
        )
    what = (
        "stopped making progress"
        + (f" after step {step:g}" if step is not None and not pd.isna(step) else "")
        + f" while staying alive: no node advanced for {_human_duration(stalled)} until the "
        f"job ended ({how})"
    )
    return Stall(
        category="hang",
        node=node,
        time=at,
        what=what,
        confidence=confidence,
        evidence=evidence,
        reasons=[
            f"no node reported a new step for {_human_duration(stalled)} before the logs end "
            f"(usual interval between reports {interval:.3g} s); how it ended: {how}",
            *[f"{node}: {r}" for r in reasons.get(node, [])],
        ],
        ambiguity=ambiguity,
        victims=victims,
        details={
            "stalled_s": stalled,
            "interval_s": interval,
            "last_step": {n: float(pace.loc[n, "last_step"]) for n in pace.index},
            "points": points,
        },
    )


def _last_report_rows(progress: pd.DataFrame) -> dict[str, Any]:
    """Per node, the timeline row of its last progress report with a step."""
    stepped = progress[progress["step"].notna()]
    if stepped.empty:
        return {}
    last = stepped.groupby("node")["step"].idxmax()
    return {str(n): stepped.loc[i, "row"] for n, i in last.items()}
