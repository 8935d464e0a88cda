"""Stage 6: from findings to a verdict — the first failing node, what happened there, and why.

The algorithm, one step per module of this package (:func:`gather` runs steps 0–5,
:func:`diagnose` all): ``zones``, ``facts``, ``blame``, ``consistency``, ``clocks``, ``phases``,
``silence``, then ``case`` (the bundle), ``scoring``, ``evidence`` and ``verdict``; the knobs and
shared helpers are in ``common``, the words of the reports in ``phrases``. A new signal is a new
module whose result goes into :class:`~analyzer.diagnose.case.Case` and the scoring.

0. **Zones** (:func:`zone_offsets`). A log that mixes epoch-stamped C++ lines with zone-less
   Python lines tells its own zone error: neighbouring lines of the two kinds should agree.
   A node whose zone-less lines sit a quarter-hour multiple away gets them aligned.
1. **Node facts** (:func:`node_facts`). Per node: first and last line time, how the log ends
   (``clean`` goodbye, ``exception``, ``killed`` / exit info, or ``mid-run``: no goodbye at all),
   versions printed, cluster spec and served address. Vectorized: one group-by for the
   times, the last ``TAIL_EVENTS`` events per node, one regex prefilter for version and
   TF_CONFIG lines.
2. **Blame** (:func:`resolve_blames`). A finding whose rule ``blames`` a captured peer
   (``/job:ps/replica:0/task:0``, ``127.0.0.1:2222``, ``ps_index``) — or whose gRPC error names
   a ``remote target`` in its continuation lines — is evidence against that peer, resolved to
   a node id through task names, ``Started server`` addresses and the majority cluster spec.
   ``blames: self`` makes it the node's own (intrinsic) error. An address that only a
   disagreeing cluster spec lists is not blame. A blame logged well after the blamer's own
   first error is teardown noise (:func:`mark_early`).
3. **Consistency** (:func:`check_consistency`). Cluster specs that disagree (the odd ones
   out are suspects), a task outside its own spec, two tasks on one address, differing
   TensorFlow / Python / protobuf / gRPC versions.
4. **Clock skew** (:func:`estimate_clock_offsets`). Near-simultaneous events — start-up and
   the burst of first errors one failure causes on its victims — give pairwise differences;
   the node whose median difference stands out most is corrected first, and so on. A
   correction needs two kinds of event to agree, or a huge offset on a log that does not
   even overlap its peers' (a task started late overlaps: its peers waited for it).
5. **Silence** (:func:`detect_silence`, :func:`detect_blocked`). A log that ends mid-run
   while its peers go on is a silent death when the node is blamed or its peers start
   failing soon after it stops. A log that ends still waiting at start-up is blocked.
6. **Scoring** (:func:`score_candidates`). Points for being blamed (more for many blamers,
   one for late blame), an intrinsic error (one more if the log ends with it), a silent
   death (one more if peers reacted at once), a kill, being the odd one out in cluster spec
   or versions, having no log while peers wait or fail; a node whose own first error blames
   someone else loses a point. Ties go to the earliest (corrected) failure, then node order.
   Causal evidence (blame) thus outranks timestamps.
7. **Verdict** (:func:`diagnose`). The winner is ``failed``; its category is what happened
   there: its intrinsic error's category (``cluster_spec_mismatch`` when that is what a wrong
   spec causes and its spec is the odd one), else the odd spec or version, ``session_blocked``
   for a task its peers waited for, ``deadline_exceeded`` for a silent node its peers then
   time out on (hung), else ``node_crash`` (silent, killed, missing). Others are ``victim``
   (with lag), ``silent``, ``missing`` or ``ok``. Confidence is ``1 - 0.5 ** (score / 2)``,
   cut for a close runner-up, a missing log or a verdict that rests on clock correction.
   No sign of failure at all: category ``none``.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from analyzer.diagnose.anchors import anchor_offsets
from analyzer.diagnose.blame import (
    PeerDirectory,
    _blaming,
    _blaming_rows,
    _errors,
    _remote_targets,
    drop_transient_waits,
    finding_texts,
    mark_early,
    resolve_blames,
)
from analyzer.diagnose.case import Case, _intrinsic_findings
from analyzer.diagnose.clocks import estimate_clock_offsets, shifted_times
from analyzer.diagnose.common import KEYWORDS, _Columns, _names, _utc, trainers_only
from analyzer.diagnose.consistency import check_consistency
from analyzer.diagnose.excerpt import excerpt_diagnosis, is_excerpt
from analyzer.diagnose.facts import Facts, _ending_of, node_facts
from analyzer.diagnose.outside import job_level_logs, stopped_together
from analyzer.diagnose.phases import (
    node_phases,
    passing_waits,
    passing_warnings,
    shutdown_noise,
)
from analyzer.diagnose.scoring import _rank
from analyzer.diagnose.silence import detect_blocked, detect_silence
from analyzer.diagnose.stall import OutsideEnd, find_stall, is_task, outside_end, stall_diagnosis
from analyzer.diagnose.verdict import (
    _anchor_clock_notes,
    _finish,
    _healthy,
    _note_inputs,
    _statuses,
    _verdict,
    _zone_notes,
)
from analyzer.diagnose.zones import aligned_times, zone_offsets
from analyzer.model import Diagnosis, iso

if TYPE_CHECKING:
    from analyzer.ingest import Ingest
    from analyzer.rules import RuleSet


__all__ = [
    "KEYWORDS",
    "Facts",
    "PeerDirectory",
    "_ending_of",
    "_remote_targets",
    "aligned_times",
    "check_consistency",
    "detect_blocked",
    "detect_silence",
    "diagnose",
    "estimate_clock_offsets",
    "finding_texts",
    "gather",
    "node_facts",
    "resolve_blames",
    "zone_offsets",
]


def gather(
    timeline: pd.DataFrame,
    findings: pd.DataFrame,
    ingest: Ingest,
    rules: Any,
    notes: list[str],
    progress: pd.DataFrame | None = None,
) -> Case:
    """Steps 0–5: everything the scoring looks at."""
    columns = _Columns(timeline)
    zones = zone_offsets(timeline, columns=columns)
    if zones.offsets:
        ts = aligned_times(timeline, zones)
        order = ["ts", "node", "file", "line_no"]
        timeline = timeline.assign(ts=ts).sort_values(order, kind="stable")
        findings = findings.assign(ts=ts.reindex(findings.index).array)
        notes.extend(_zone_notes(zones))
        columns = _Columns(timeline)
    anchored = anchor_offsets(progress, timeline)
    if anchored.offsets:  # a node's clock off its peers', read from events they shared
        ts = shifted_times(timeline["node"], _utc(timeline["ts"]), anchored.offsets)
        timeline = timeline.assign(ts=ts).sort_values(
            ["ts", "node", "file", "line_no"], kind="stable"
        )
        findings = findings.assign(ts=ts.reindex(findings.index).array)
        progress = progress.assign(
            ts=shifted_times(progress["node"], _utc(progress["ts"]), anchored.offsets)
        )
        notes.extend(_anchor_clock_notes(anchored))
        columns = _Columns(timeline)
    facts = node_facts(timeline, ingest, columns=columns)
    outside = job_level_logs(facts)
    if outside and progress is not None and not progress.empty and "node" in progress:
        # a job-level log's step lines are a launcher's copy of the tasks' own: not a trainer
        progress = progress[~progress["node"].isin(outside)].reset_index(drop=True)
    consistency = check_consistency(facts)
    directory = PeerDirectory(facts, consistency.majority_nodes)
    # (the texts need only which rows _blaming keeps: a one-column frame of them)
    blaming_rows = findings[["node"]][_blaming_rows(findings)] if not findings.empty else findings
    texts = finding_texts(timeline, blaming_rows, columns=columns)
    # (object dtype: the frames filtered from it below share the strings, no copies)
    full_text = np.array([texts.get(r) for r in findings.index.tolist()], dtype=object)
    findings = findings.assign(full_text=pd.Series(full_text, index=findings.index, dtype=object))
    errors = _errors(findings)
    blaming = _blaming(findings)
    copies = {n for n, f in facts.items() if f.copy_of}
    if copies and not blaming.empty:
        # a launcher's copy of a task's lines blames what the task's own log already blames:
        # counted once, from the task
        blaming = blaming[~blaming["node"].astype(str).isin(copies).to_numpy(dtype=bool)]
    blames = resolve_blames(blaming, directory, rules, texts)
    phases = node_phases(timeline, columns.ts, progress)
    kept = drop_transient_waits(blames, facts, phases.serving(), phases.joined(), phases.started())
    retries = blames["row"][
        ~blames["row"].isin(kept["row"]) & (blames["category"] != "session_blocked")
    ]
    if len(retries):  # a peer not up yet while the task itself was starting: no failure
        notes.append(
            f"Start-up: {len(retries):,} connection error(s) logged before their task's own "
            "server started, to peers that came up: retries while the job started, not failures."
        )
        errors = errors[~errors.index.isin(retries)]
    blames = mark_early(kept, errors)
    noise = shutdown_noise(errors, timeline.index.get_indexer(errors.index), blames, phases, facts)
    if len(noise):
        repeats = errors["repeats"] if "repeats" in errors.columns else None
        n_noise = len(noise) if repeats is None else int(repeats[errors.index.isin(noise)].sum())
        notes.append(
            f"Shutdown: {n_noise:,} error(s) logged after training finished "
            f"({iso(phases.end)}) name only peers that had finished: shutdown noise, not failures."
        )
        errors = errors[~errors.index.isin(noise)]
        blames = blames[~blames["row"].isin(noise)]
    # (whether every log ended well is asked of the tasks' logs: a launcher's own log ends
    # with its teardown of the processes still running once the work was done)
    tasks = {n: f for n, f in facts.items() if n not in outside}
    passing = passing_warnings(errors, phases, tasks)
    if len(passing):
        errors, blames = _set_aside(
            errors,
            blames,
            passing,
            f"Training finished and every log ended cleanly: {len(passing)} finding(s) logged "
            "as warnings were trouble the job got over, not failures.",
            notes,
        )
    late = passing_waits(blames, phases, tasks, errors)
    if late:
        notes.append(
            f"Start-up: the job waited for {_names(late)} to come up, then trained to the end "
            "and every log ended well: a late start the job got over, not a failure."
        )
        blames = blames[~(blames["blamed"].isin(late) & (blames["category"] == "session_blocked"))]
    end = outside_end(SimpleNamespace(facts=facts), timeline)
    after_stop = _after_the_stop(blames, end)
    if len(after_stop):
        errors, blames = _set_aside(
            errors,
            blames,
            after_stop,
            f"Stop: {len(after_stop):,} error(s) logged after {_names(sorted(end.sources))} "
            "stopped the job name tasks that stop ended: its doing, not failures.",
            notes,
        )
    clock = estimate_clock_offsets(facts, blames)
    for node, offset in anchored.offsets.items():  # (the offsets in all: the anchors' too)
        clock.by_anchors[node] = offset
        clock.offsets[node] = round(clock.offsets.get(node, 0.0) + offset, 3)
    intrinsic = _intrinsic_findings(errors, blames)
    # (what detect_silence reads of the symptoms: their nodes and times)
    symptoms = errors[["node", "ts"]][~errors.index.isin(intrinsic.index)]
    stopped = stopped_together(facts, outside, end.stopped, phases.end)
    silent = detect_silence(facts, symptoms, blames, clock, phases.serving(), outside, stopped)
    blocked = detect_blocked(facts, blaming)
    case = Case(
        facts,
        errors,
        blames,
        intrinsic,
        consistency,
        clock,
        silent,
        findings,
        blocked,
        zones,
        phases=phases,
        outside=outside,
        stopped=stopped,
        noise=len(noise),
    )
    case._memo["symptom_times"] = symptoms
    case._memo["outside_end"] = end
    case._memo["timeline"] = timeline  # (a reference: shared_files reads the lines of a path)
    case._memo["progress"] = progress  # (both on the clocks aligned above)
    case.told_to_stop, case.unresponsive = end.stopped, end.unresponsive
    for label, text in zip(end.rows, end.texts, strict=True):
        if label in timeline.index:
            case.end_lines.setdefault(text, timeline.loc[label].to_dict())
    return case


def _set_aside(
    errors: pd.DataFrame, blames: pd.DataFrame, rows: Any, note: str, notes: list[str]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``errors`` and ``blames`` without the findings ``rows`` (found not to be failures), and
    ``note`` said of them."""
    notes.append(note)
    return errors[~errors.index.isin(rows)], blames[~blames["row"].isin(rows)]


def _after_the_stop(blames: pd.DataFrame, end: OutsideEnd) -> list:
    """Rows of the errors a task logged at or after an outside party's first stop line that
    name a task that stop ended (a dispatcher that exited on the SIGTERM, refusing the
    trainers that still called it): the stop's doing, not a failure it reveals."""
    if blames.empty or end.time is None or pd.isna(end.time) or not end.stopped:
        return []
    peer = blames[~blames["self"].astype(bool)]
    hit = (
        peer["blamed"].isin(end.stopped).to_numpy(dtype=bool)
        & peer["victim"].map(lambda v: is_task(str(v))).to_numpy(dtype=bool)
        & (_utc(peer["ts"]) >= end.time).to_numpy(dtype=bool)
    )
    rows = set(peer["row"][hit])
    # (a row that also names a task the stop did not end stays)
    rows -= set(blames["row"][blames["row"].isin(rows) & ~blames["blamed"].isin(end.stopped)])
    return sorted(rows)


def diagnose(
    timeline: pd.DataFrame,
    findings: pd.DataFrame,
    ingest: Ingest,
    rules: RuleSet | None,
    *,
    progress: pd.DataFrame | None = None,
    comparison: Any = None,
) -> Diagnosis:
    """Steps 0–7 of the module doc: the verdict, node statuses and the reasoning notes.

    ``progress`` (:func:`analyzer.progress.progress_of`, computed when None) and ``comparison``
    (:func:`analyzer.compare.compare` with a good run, optional) feed the stall signals."""
    notes: list[str] = []
    if progress is None:
        from analyzer.progress import progress_of

        progress = progress_of(timeline)
    progress = trainers_only(progress)  # (an evaluator's "step N" is the step it evaluated)
    ev = gather(timeline, findings, ingest, rules, notes, progress)
    _note_inputs(ev, notes)
    if is_excerpt(ev):  # one node's lines, no peers: see analyzer/diagnose/excerpt.py
        return excerpt_diagnosis(ev, rules, notes)
    timeline, progress = ev._memo["timeline"], ev._memo["progress"]
    stall = find_stall(ev, timeline, progress, comparison)
    if stall is not None:
        return stall_diagnosis(stall, ev, rules, notes)
    cands = _rank(ev) if ev.failing else []
    if not cands:
        return _finish(_healthy(ev, notes), ev, _statuses(None, ev, None), notes)
    root_cause = _verdict(ev, cands, rules, notes)
    return _finish(root_cause, ev, _statuses(cands[0].node, ev, cands[0].time), notes)
