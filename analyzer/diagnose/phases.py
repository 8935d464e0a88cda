"""Phases: how far each node got, when the job's training ended, and what came after.

A distributed run goes through the same phases on every node: its server starts, it joins the
cluster, it trains, it may checkpoint, it finishes and shuts down. Which phases a node's log
shows, and when, says two things the error lines alone do not:

- **Shutdown noise.** Once training has finished, nodes leave one by one; a peer still
  heart-beating or reducing logs ``UNAVAILABLE`` / ``Failed to send RPC to coordination
  service`` naming the one that left first. Such a symptom, logged after the job's training
  ended and naming nobody who failed, is not a failure (:func:`shutdown_noise`).
- **Outliers** (used by the scoring): the node that reached fewer phases than its peers.

The phases are a table of line patterns (RE2, matched over the message column at once).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from analyzer.diagnose.common import SYMPTOM_CATEGORIES, _contains, _utc, _values

#: (phase, pattern over the message) in the order a run goes through them. Patterns are RE2
#: and carry no anchor or word boundary (they run block-wise first).
PHASES: tuple[tuple[str, str], ...] = (
    (
        "server",
        r"Started server with target|[Ss]erver (?:started|listening)|server for /job:"
        r"|Started (?:the )?coordination service|Started tf\.data \w*Server running at",
    ),
    (
        "connected",
        r"Coordination agent has successfully connected|[Ss]ession created"
        r"|Graph was finalized|Running local_init_op|MultiWorkerMirroredStrategy with cluster_spec"
        r"|replicas in sync|ParameterServerStrategy.{0,40}(?:ready|connect)"
        r"|Enabled multi-worker collective|Check health not enabled",
    ),
    (
        "training",
        r"[Ss]tep[ :=#]+\d|global_step[ :=/]|Epoch \d+/\d+|\d+/\d+ .{0,80}[mu]?s/step"
        r"|loss[ :=]+[-\d.]",
    ),
    (
        "checkpoint",
        r"[Ss]aving (?:checkpoints?|weights|model)|[Cc]heckpoint (?:saved|written)"
        r"|[Ss]aved (?:checkpoint|model|weights)|weights saved",
    ),
    (
        "finished",
        r"[Tt]raining (?:finished|complete|is done|done)|[Ff]inished training"
        r"|Loss for final step|[Tt]raining ended|[Dd]one training",
    ),
)
PHASE_NAMES = tuple(name for name, _ in PHASES)
_ANY_PHASE = "|".join(f"(?:{pattern})" for _, pattern in PHASES)


@dataclass
class Phases:
    """Per node, the first and last time each phase showed; and the job's end of training."""

    first: dict[str, dict[str, Any]] = field(default_factory=dict)  #: node → phase → time
    last: dict[str, dict[str, Any]] = field(default_factory=dict)
    end: Any = None  #: the first time any node said its training finished (UTC), or None
    #: per node: the timeline positions of its phase lines (ascending) and their phase numbers
    order: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    #: per node: (last step, step count) when its last step report falls short of the count
    short: dict[str, tuple[float, float]] = field(default_factory=dict)
    #: per node that started again after it had trained (a restarted process: a supervisor's,
    #: kubelet's or a launcher's restart), the last phase line of its first run
    restarts: dict[str, dict] = field(default_factory=dict)

    def reached(self, node: str) -> list[str]:
        """The phases ``node``'s log shows, in run order."""
        seen = self.first.get(node, {})
        return [p for p in PHASE_NAMES if p in seen]

    def furthest(self, node: str) -> str | None:
        got = self.reached(node)
        return got[-1] if got else None

    def serving(self) -> set[str]:
        """Nodes whose log shows a server start and nothing of training: they only serve."""
        return {n for n in self.first if self.furthest(n) in ("server", "connected")}

    def started(self) -> dict[str, Any]:
        """Per node, when its log first says its own server started."""
        return {n: seen["server"] for n, seen in self.first.items() if "server" in seen}

    def joined(self) -> dict[str, Any]:
        """Per node, when its log first says it joined the cluster (connected, or trained)."""
        later = PHASE_NAMES[PHASE_NAMES.index("connected") :]
        out = {}
        for node, seen in self.first.items():
            times = [seen[p] for p in later if p in seen]
            if times:
                out[node] = min(times)
        return out

    def finished(self, node: str) -> Any:
        """When ``node`` said its training finished, or None."""
        return self.first.get(node, {}).get("finished")

    def phase_before(self, node: str, position: int) -> str | None:
        """The phase of ``node``'s last phase line before timeline ``position``."""
        got = self.order.get(node)
        if got is None:
            return None
        positions, phases = got
        i = int(np.searchsorted(positions, position)) - 1
        return PHASE_NAMES[int(phases[i])] if i >= 0 else None

    def phase_after(self, node: str, position: int) -> str | None:
        """The phase of ``node``'s first phase line after timeline ``position``."""
        got = self.order.get(node)
        if got is None:
            return None
        positions, phases = got
        i = int(np.searchsorted(positions, position, side="right"))
        return PHASE_NAMES[int(phases[i])] if i < len(positions) else None


def node_phases(
    timeline: pd.DataFrame, ts: pd.Series | None = None, progress: pd.DataFrame | None = None
) -> Phases:
    """The phases of every node: one pattern pass over the message column for any phase, then
    one per phase over the lines that showed one.

    With the nodes' ``progress`` (:func:`analyzer.progress.progress_of`), a report that reaches
    the step count it runs to (``step 60/60``; the last batch of Keras' last ``Epoch 3/3``)
    finishes the training too, for scripts that print no goodbye.
    """
    out = Phases()
    if timeline.empty or "message" not in timeline:
        return out
    ts = _utc(timeline["ts"]) if ts is None else ts
    nodes = timeline["node"].astype(str).to_numpy()
    # the times, taken once (a zoned datetime column as is: not a Timestamp object per row)
    ns_utc = isinstance(ts.dtype, pd.DatetimeTZDtype) and ts.dtype.unit == "ns"
    times_of = ts.array if ns_utc else ts.to_numpy()
    hit_pos, hit_phase = [], []
    done = _completed(timeline, progress)
    if len(done):
        hit_pos.append(done)
        hit_phase.append(np.full(len(done), PHASE_NAMES.index("finished")))
        for node, t in pd.Series(times_of[done], index=nodes[done]).groupby(level=0).min().items():
            out.first.setdefault(str(node), {})["finished"] = t
    # one pass for any phase, then each phase over the lines that showed one
    messages = timeline["message"]
    shown = np.flatnonzero(_contains(messages, _ANY_PHASE))
    shown_messages = messages.iloc[shown]
    for number, (name, pattern) in enumerate(PHASES):
        hit = np.zeros(len(messages), dtype=bool)
        hit[shown[_contains(shown_messages, pattern)]] = True
        if not hit.any():
            continue
        hit_pos.append(np.flatnonzero(hit))
        hit_phase.append(np.full(int(hit.sum()), number))
        times = pd.Series(times_of[hit], index=nodes[hit]).dropna()
        grouped = times.groupby(level=0)
        for node, t in grouped.min().items():
            out.first.setdefault(str(node), {})[name] = t
        for node, t in grouped.max().items():
            out.last.setdefault(str(node), {})[name] = t
    if hit_pos:
        pos, phase = np.concatenate(hit_pos), np.concatenate(hit_phase)
        # a line matching two phases counts as the later one
        order = np.lexsort((phase, pos))
        pos, phase = pos[order], phase[order]
        # per node (in sorted order), its share of them: one stable sort by node
        codes, uniques = pd.factorize(nodes[pos], sort=True)
        by_node = np.argsort(codes, kind="stable")
        pos, phase = pos[by_node], phase[by_node]
        bounds = np.searchsorted(codes[by_node], np.arange(len(uniques) + 1))
        for i, node in enumerate(uniques):
            out.order[str(node)] = (
                pos[bounds[i] : bounds[i + 1]],
                phase[bounds[i] : bounds[i + 1]],
            )
    out.restarts = _restarts(out.order, timeline, times_of)
    ends = [p["finished"] for p in out.first.values() if "finished" in p]
    out.end = min(ends) if ends else None
    out.short = _short_of_count(progress)
    return out


_TRAINING = PHASE_NAMES.index("training")
#: TensorFlow's own line when a process starts its gRPC server (grpc_server_lib.cc): once a
#: process
_SERVER_STARTED = "Started server with target"


def _restarts(order: dict, timeline: pd.DataFrame, times_of: Any) -> dict[str, dict]:
    """Nodes whose log shows TensorFlow start a server a second time: the process started
    again (a supervisor's, kubelet's or a launcher's restart). Per node, the line where its
    first run ended: the last line of the first start's file when the second run has a file of
    its own (kubelet's ``0.log`` and ``1.log``); in one appended file, the last line of the
    first run's last phase before the second run's start-up lines."""
    out: dict[str, dict] = {}
    messages = timeline["message"]
    files = timeline.get("file")
    for node, (pos, phase) in order.items():
        servers = [
            i for i in np.flatnonzero(phase == 0) if _SERVER_STARTED in str(messages.iloc[pos[i]])
        ]
        if len(servers) < 2:
            continue
        first, second = servers[0], servers[1]
        k = second
        while k - 1 > first and phase[k - 1] < _TRAINING:
            k -= 1  # (the second run's own start-up lines)
        last = int(pos[k - 1])
        if files is not None and files.iloc[pos[first]] != files.iloc[pos[second]]:
            same = np.flatnonzero((files == files.iloc[pos[first]]).to_numpy(dtype=bool))
            mine = same[(timeline["node"].iloc[same] == node).to_numpy(dtype=bool)]
            last = int(mine.max()) if len(mine) else last
        row = timeline.iloc[last]
        out[node] = {
            "ts": times_of[last],
            "file": row.get("file"),
            "line_no": row.get("line_no"),
            "message": row.get("message"),
        }
    return out


def _short_of_count(progress: pd.DataFrame | None) -> dict[str, tuple[float, float]]:
    """Per node, (step, count) of its last step report (``step 21/60``) when short of the
    count it runs to. (Keras' bar counts batches of one epoch: not read here.)"""
    if progress is None or progress.empty or "total" not in progress:
        return {}
    steps = progress[(progress["source"] != "keras_progbar") & (progress["total"] > 0)]
    if steps.empty:
        return {}
    last = steps.groupby("node", observed=True).tail(1)
    short = last[last["step"] < last["total"]]
    return {
        str(n): (float(a), float(b))
        for n, a, b in zip(short["node"], short["step"], short["total"], strict=True)
    }


def _completed(timeline: pd.DataFrame, progress: pd.DataFrame | None) -> np.ndarray:
    """Timeline positions of progress reports that reach the count they run to."""
    if progress is None or progress.empty or "total" not in progress:
        return np.zeros(0, dtype=np.int64)
    step, total = progress["step"].to_numpy(float), progress["total"].to_numpy(float)
    reached = (total > 0) & (step >= total)
    if "source" in progress and (progress["source"] == "keras_progbar").any():
        # a Keras bar counts batches of one epoch: the job ends with the last epoch's last batch
        bar = (progress["source"] == "keras_progbar").to_numpy()
        last_epoch = _last_epochs(timeline)
        epoch = progress["epoch"].to_numpy(float)
        wanted = progress["node"].astype(str).map(last_epoch).to_numpy(float)
        reached = np.where(bar, (epoch == wanted) & (step >= epoch * total), reached)
    rows = progress["row"].to_numpy()[reached]
    positions = timeline.index.get_indexer(rows)
    return np.sort(positions[positions >= 0])


def _last_epochs(timeline: pd.DataFrame) -> dict[str, float]:
    """Per node, the epoch count Keras says it runs (``Epoch 3/10`` → 10)."""
    hit = _contains(timeline["message"], r"Epoch \d+/\d+")
    if not hit.any():
        return {}
    lines = timeline.loc[hit, ["node", "message"]].drop_duplicates()
    out: dict[str, float] = {}
    for node, message in zip(_values(lines["node"]), _values(lines["message"]), strict=True):
        m = _EPOCHS_RE.search(str(message))
        if m:
            out[str(node)] = float(m.group(1))
    return out


_EPOCHS_RE = re.compile(r"Epoch \d+/(\d+)")


def shutdown_noise(
    errors: pd.DataFrame,
    positions: np.ndarray,
    blames: pd.DataFrame,
    phases: Phases,
    facts: dict[str, Any],
) -> np.ndarray:
    """Labels of the error rows that are shutdown noise.

    A symptom (a lost peer, a failed heartbeat, a timeout) is shutdown noise when the node
    that logged it had finished its training and started nothing since (its last phase line
    before the error says training finished: no checkpoint or further step after it), or went
    on to finish it with no further step (its next phase line says training finished: the
    error came while its session closed), and every peer it names had finished or ended
    cleanly: it only says that a peer left first.
    A node's own errors (OOM, a bad write) are never noise; neither is a symptom that
    interrupts work (a checkpoint being saved) or names a peer that died before finishing.
    ``positions`` are the errors' positions in the timeline the phases were read from.
    """
    if errors.empty or phases.end is None:
        return np.zeros(0, dtype=object)
    times = _utc(errors["ts"])
    late = (times >= phases.end).to_numpy() & errors["category"].isin(SYMPTOM_CATEGORIES).to_numpy()
    if not late.any():
        return np.zeros(0, dtype=object)
    named: dict[Any, set[str]] = {}
    if not blames.empty:
        peer = blames[~blames["self"]]
        for row, blamed in zip(_values(peer["row"]), _values(peer["blamed"]), strict=True):
            named.setdefault(row, set()).add(str(blamed))
    labels = errors.index[late].tolist()
    nodes = [str(n) for n in _values(errors["node"][late])]
    at_finish = _next_to_finish(phases, nodes, positions[late])
    noise = []
    for label, t, ok in zip(labels, times[late].tolist(), at_finish.tolist(), strict=True):
        if ok and all(_left_by(facts.get(p), phases, p, t) for p in named.get(label, ())):
            noise.append(label)
    return np.array(noise, dtype=object)


def _next_to_finish(phases: Phases, nodes: list[str], positions: np.ndarray) -> np.ndarray:
    """Per row (``nodes[i]`` at timeline ``positions[i]``): is the node's phase line before it,
    or the one after it, the end of its training? One search per node, not per row."""
    out = np.zeros(len(nodes), dtype=bool)
    finished = PHASE_NAMES.index("finished")
    by_node: dict[str, list[int]] = {}
    for i, node in enumerate(nodes):
        by_node.setdefault(node, []).append(i)
    for node, rows in by_node.items():
        got = phases.order.get(node)
        if got is None:
            continue
        order_positions, order_phases = got
        if not len(order_positions):
            continue
        done = np.asarray(order_phases) == finished
        # a line that is both a step report and the end ("training finished after 240 steps",
        # "Loss for final step") ends the training: any phase of a line counts
        pos = np.asarray(order_positions)
        first = np.r_[True, pos[1:] != pos[:-1]]
        done = np.maximum.reduceat(done.astype(np.int8), np.flatnonzero(first)).astype(bool)[
            np.cumsum(first) - 1
        ]
        at = np.asarray(positions)[rows]
        before = np.searchsorted(order_positions, at) - 1
        after = np.searchsorted(order_positions, at, side="right")
        hit = (before >= 0) & done[np.maximum(before, 0)]
        hit |= (after < len(done)) & done[np.minimum(after, len(done) - 1)]
        out[rows] = hit
    return out


def ended_well(errors: pd.DataFrame, phases: Phases, facts: dict[str, Any]) -> bool:
    """Did every log (of a job whose training finished) end well: with a goodbye, or, after
    its own training finished, with errors that were all set aside as shutdown noise (a
    worker whose last lines are its failed heartbeats to a leader that had already exited)?
    ``errors`` are the findings left after the noise was set aside."""
    if phases.end is None:
        return False
    logs = {n: f for n, f in facts.items() if not getattr(f, "missing", False)}
    if not logs:
        return False
    erring = set(_values(errors["node"])) if not errors.empty else set()
    return all(
        getattr(f, "ending", None) == "clean"
        or (
            getattr(f, "ending", None) == "exception"
            and phases.finished(n) is not None
            and n not in erring
        )
        for n, f in logs.items()
    )


def passing_warnings(errors: pd.DataFrame, phases: Phases, facts: dict[str, Any]) -> np.ndarray:
    """Labels of the error findings that did not stop a job which finished.

    When training finished and every node's log ended cleanly, a finding whose own line was
    logged as a warning (or lower) was a passing trouble the job got over, not a failure:
    TensorFlow logs at warning level what it retries or cleans up (an aborted rendezvous of a
    cancelled step). A line logged as an error, a node that ended otherwise, or a job that
    never finished keeps every finding.
    """
    if errors.empty or phases.end is None or "level" not in errors.columns:
        return np.zeros(0, dtype=object)
    logs = [f for f in facts.values() if not getattr(f, "missing", False)]
    if not logs or any(getattr(f, "ending", None) != "clean" for f in logs):
        return np.zeros(0, dtype=object)
    level = errors["level"].astype(object).where(errors["level"].notna(), None)
    mild = level.isin(("WARNING", "INFO", "DEBUG")).to_numpy(dtype=bool)
    return np.array(errors.index[mild].tolist(), dtype=object)


def passing_waits(
    blames: pd.DataFrame, phases: Phases, facts: dict[str, Any], errors: pd.DataFrame
) -> list[str]:
    """The nodes whose peers waited for them at start-up in a job that then finished.

    When training finished and every log ended well (:func:`ended_well`), a start-up wait
    for a task that came up and ended well too was a late start the job got over, not a
    failure: the task is named (a note says so), the waits are not blames.
    """
    if blames.empty or phases.end is None:
        return []
    waits = blames[~blames["self"] & (blames["category"] == "session_blocked")]
    if not ended_well(errors[~errors.index.isin(waits["row"])], phases, facts):
        return []
    late = sorted({str(n) for n in waits["blamed"]})
    return [n for n in late if n in facts and not getattr(facts[n], "missing", False)]


def _left_by(f: Any, phases: Phases, node: str, t: Any) -> bool:
    """Had ``node`` finished its part by ``t``: its training finished, or its log ended clean?"""
    if f is None or getattr(f, "missing", False):
        return False
    done = phases.finished(node)
    if done is not None and done <= t:
        return True
    last = getattr(f, "last_time", None)
    return getattr(f, "ending", None) == "clean" and last is not None and last <= t
