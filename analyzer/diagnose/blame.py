"""Step 2, blame: which node each error line names, resolved to a node id."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from analyzer.diagnose.common import (
    _TASK_RE,
    BLAME_SEVERITIES,
    CONTINUATION_BEFORE,
    CONTINUATION_FRAMES,
    CONTINUATION_LINES,
    ERROR_SEVERITIES,
    LATE_BLAME_S,
    REGEX_TIMEOUT_S,
    START_WAIT_S,
    _address_key,
    _arrow_strings,
    _column,
    _Columns,
    _rule,
    _seconds,
    _text,
    _utc,
    _values,
)
from analyzer.diagnose.facts import Facts, program_node

_REMOTE_TARGET_RE = re.compile(r"remote target (/job:[\w-]+(?:/replica:\d+)?/task:\d+)")
_PROPAGATED_RE = re.compile(r"grpc_message:\s*\"(?:[^\"]*aborted by|Cancelled|CANCELLED)", re.I)
_CANCELLED_RE = re.compile(r"CancelledError|\bCANCELLED\b")
_CLOSING_QUOTE_RE = re.compile(r'(?<!\\)"')


class PeerDirectory:
    """Resolves what an error line names (task, address, index) to a node id."""

    def __init__(self, facts: dict[str, Facts], majority_nodes: set[str] | None = None):
        self.nodes = set(facts)
        self._facts = facts
        self.served: dict[tuple[str, str], set[str]] = defaultdict(set)
        self.spec: dict[tuple[str, str], set[str]] = defaultdict(set)
        self.minority_spec: dict[tuple[str, str], set[str]] = defaultdict(set)
        ranks: dict[int, set[str]] = defaultdict(set)  #: launcher's rank → the tasks it was
        for f in facts.values():
            if f.rank is not None:
                ranks[f.rank].add(f.node)
            if f.address and (key := _address_key(f.address)):
                self.served[key].add(f.node)
            table = self.spec if majority_nodes is None or f.node in majority_nodes else None
            for job, addrs in (f.cluster or {}).items():
                for index, addr in enumerate(addrs):
                    key = _address_key(addr)
                    if key:
                        (table if table is not None else self.minority_spec)[key].add(
                            f"{job}:{index}"
                        )

        self.ranks = {rank: next(iter(nodes)) for rank, nodes in ranks.items() if len(nodes) == 1}

    def chief(self) -> str | None:
        """The task that initializes the model and coordinates: ``chief:0`` (or ``master:0``)
        where the cluster has one, else ``worker:0`` (TF1 and Estimator's convention)."""
        return next((n for n in ("chief:0", "master:0", "worker:0") if n in self.nodes), None)

    def resolve(self, group: str, value: str) -> tuple[str | None, str]:
        """(node or None, how it was resolved) for one captured value."""
        if group == "chief":
            return self.chief(), "it waits for the chief, which initializes the model"
        if group == "slurm_task" or group.startswith("launcher_rank"):
            # a launcher's rank number (srun's task, mpirun's process rank): the task whose log
            # was that rank (it printed SLURM_PROCID / OMPI_COMM_WORLD_RANK, or came behind
            # that rank's tag or in that rank's output folder)
            node = self.ranks.get(int(value)) if str(value).isdigit() else None
            who = "srun's task" if group == "slurm_task" else "the launcher's rank"
            if node is None:
                return None, f"no log is known as {who} {value}"
            return node, f"{who} {value} is {node}"
        value = str(value).strip()
        m = _TASK_RE.search(value)
        if m:
            if group == "remote_target":
                return f"{m['job']}:{int(m['index'])}", "the failed RPC's remote target"
            return f"{m['job']}:{int(m['index'])}", "by task name"
        short = re.fullmatch(r"(?P<job>[a-z][\w-]*):(?P<index>\d+)", value)
        if short and f"{short['job']}:{int(short['index'])}" in self.nodes:
            return f"{short['job']}:{int(short['index'])}", "by task name (job:index)"
        job_index = re.fullmatch(r"(?P<job>[a-z]+)_(?:index|task|id)", group)
        if job_index and value.isdigit():
            return f"{job_index['job']}:{int(value)}", f"{job_index['job']} index {value}"
        if group == "peer_program":  # a launcher's name for the task's process
            node = program_node(value, self._facts)
            if node is not None:
                return node, f"the launcher's program {value} runs {node}"
        key = _address_key(value)
        if key is None:
            return None, f"unrecognised peer {value!r}"
        for table, where in ((self.served, "serves"), (self.spec, "listens in the cluster spec")):
            found = table.get(key, set())
            if len(found) == 1:
                node = next(iter(found))
                return node, f"{value} is where {node} {where}"
        if self.minority_spec.get(key):
            return None, f"{value} appears only in a cluster spec that disagrees with the others"
        return None, f"{value} belongs to no known task"


def _candidate_values(captures: dict, blames: str | None) -> list[tuple[str, str]]:
    """The captures worth resolving, the rule's ``blames`` group first."""
    values = [(blames, captures[blames])] if blames and blames in captures else []
    if captures.get("peer_job") and captures.get("peer_tasknum"):
        # a job name and a task index apart in one line (a command's --job_name/--task_index)
        values.insert(0, ("peer_node", f"{captures['peer_job']}:{captures['peer_tasknum']}"))
    for name in ("peer_task", "peer_address", *sorted(captures)):
        if (
            name != blames
            and name in captures
            and (name.startswith(("peer", "launcher_rank")) or name.endswith("_index"))
        ):
            values.append((name, captures[name]))
    return values


def _blamed_peer(
    victim: str, values: list[tuple[str, str]], directory: PeerDirectory
) -> tuple[str | None, str | None]:
    """The first value that resolves to a node other than the victim itself."""
    for group, value in values:
        node, how = directory.resolve(group, value)
        if node and node != victim:
            return node, how
    return None, None


def _captures_in(rule: Any, text: str) -> dict[str, str]:
    """The rule's named groups over the full text (its continuation lines included)."""
    compiled = getattr(rule, "matcher", None)
    if compiled is None or not text:
        return {}
    try:
        m = compiled.search(text, timeout=REGEX_TIMEOUT_S)
    except TimeoutError:
        return {}
    return {k: v for k, v in m.groupdict().items() if v is not None} if m else {}


def _remote_targets(text: str) -> list[tuple[str, str]]:
    """``remote target /job:...`` in a gRPC error: the task whose RPC failed.

    A target that only relayed an error (the next ``remote target`` sits inside its own
    ``grpc_message``) is skipped for the inner one, the origin. A target whose own error is
    an abort propagated from elsewhere (``Collective ops is aborted by``, ``CANCELLED``) is a
    fellow victim, not the culprit, and is skipped too.
    """
    out = []
    matches = list(_REMOTE_TARGET_RE.finditer(text))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        segment = text[m.end() : end]
        if i + 1 < len(matches) and _relays(segment):
            continue
        if _PROPAGATED_RE.search(segment[:400]):
            continue
        out.append(("remote_target", m.group(1)))
    return out


def _relays(segment: str) -> bool:
    """Does a ``grpc_message:"`` string open in ``segment`` and stay open to its end?"""
    opened = segment.find('grpc_message:"')
    if opened < 0:
        return False
    return _CLOSING_QUOTE_RE.search(segment, opened + len('grpc_message:"')) is None


def resolve_blames(
    findings: pd.DataFrame,
    directory: PeerDirectory,
    rules: Any,
    texts: dict[Any, str] | None = None,
) -> pd.DataFrame:
    """Step 2: one row per finding that blames a node: victim, blamed, how, and the line.

    ``texts`` maps a finding's row to its full text (message and detail); a ``remote target``
    named there is the peer the gRPC error came from and is preferred over other captures.
    """
    columns = ["row", "victim", "blamed", "self", "how", "ts", "pattern_id", "category", "severity"]
    texts = texts or {}
    directory = _MemoDirectory(directory)
    labels = findings.index.tolist()
    victims = [n if type(n) is str else str(n) for n in _values(findings["node"])]
    pattern_ids = _column(findings, "pattern_id")
    full = [texts.get(r, "") for r in labels] if texts else [""] * len(labels)
    kept: list[int] = []
    rows: list[tuple] = []
    rule_of: dict[Any, tuple[Any, Any]] = {}  # pattern id → (rule, what it blames)
    memo: dict[tuple, list] = {}  # many findings repeat one text: its peers found once...
    resolved: dict[tuple, tuple[str | None, str | None]] = {}  # ...and resolved once per victim
    for i, (row_id, victim, pattern_id, message, captures, text) in enumerate(
        zip(
            labels,
            victims,
            pattern_ids,
            _cancel_candidates(findings),
            _column(findings, "captures"),
            full,
            strict=True,
        )
    ):
        try:
            rule, blames = rule_of[pattern_id]
        except KeyError:
            rule = _rule(rules, pattern_id)
            rule, blames = rule_of[pattern_id] = (rule, getattr(rule, "blames", None))
        except TypeError:  # an unhashable pattern id
            rule = _rule(rules, pattern_id)
            blames = getattr(rule, "blames", None)
        if blames == "self":
            blamed, how = victim, "the rule blames the node that logged it"
            # (an in-graph client reports the allocations that failed on its workers)
            where = _device_task(captures, directory) if isinstance(captures, dict) else None
            if where is not None and where != victim:
                blamed, how = where, "the allocation failed on its device"
        else:
            if message is not None and _CANCELLED_RE.search(message):
                continue  # a cancelled call says nothing about the peer it went to
            if not isinstance(captures, dict):
                captures = {}
            try:  # (the rule follows from the pattern id)
                key = (pattern_id, text, tuple(captures.items()))
                got = resolved.get((key, victim))
            except TypeError:  # an unhashable pattern id or capture
                key = got = None
            if got is None:
                values = memo.get(key) if key is not None else None
                if values is None:
                    values = _peer_values(rule, blames, captures, text)
                    if key is not None:
                        memo[key] = values
                got = _blamed_peer(victim, values, directory)
                if key is not None:
                    resolved[key, victim] = got
            blamed, how = got
            if blamed is None:
                continue
        kept.append(i)
        rows.append((row_id, victim, blamed, blamed == victim, how, pattern_id))
    if not kept:
        return pd.DataFrame([], columns=columns)
    names = ["row", "victim", "blamed", "self", "how", "pattern_id"]
    out: dict[str, Any] = {n: list(v) for n, v in zip(names, zip(*rows, strict=True), strict=True)}
    for name in ("category", "severity"):
        values = _column(findings, name)
        out[name] = [values[i] for i in kept]
    ts = findings["ts"].iloc[kept]
    if isinstance(ts.dtype, pd.ArrowDtype) and pa.types.is_timestamp(ts.dtype.pyarrow_dtype):
        # the column a list of its Timestamps would give, through Arrow
        out["ts"] = pa.chunked_array(ts.array.__arrow_array__()).to_pandas().array
    else:
        out["ts"] = ts.tolist()
    return pd.DataFrame(out, columns=columns)


def _device_task(captures: dict, directory: _MemoDirectory) -> str | None:
    """The known task whose device a ``device`` capture names (``/job:worker/replica:0/task:1/
    device:CPU:0``: where the failing op ran), or None."""
    device = captures.get("device")
    if not isinstance(device, str) or "/job:" not in device:
        return None
    node, _ = directory.resolve("device", device)
    return node if node in directory.nodes else None


def _cancel_candidates(findings: pd.DataFrame) -> list[str | None]:
    """Per finding, its message as text if it may say CANCELLED (holds ``CancelledError`` or
    ``CANCELLED``, which every match of ``_CANCELLED_RE`` does), else None: only those few
    messages become Python strings."""
    n = len(findings)
    if "message" not in findings:
        return [None] * n
    col = findings["message"]
    if not _arrow_strings(col):
        texts = (_text(v) for v in _values(col))
        return [t if "CancelledError" in t or "CANCELLED" in t else None for t in texts]
    import pyarrow.compute as pc

    arr = pa.chunked_array(col.array.__arrow_array__())
    maybe = pc.or_(pc.match_substring(arr, "CancelledError"), pc.match_substring(arr, "CANCELLED"))
    rows = np.flatnonzero(maybe.fill_null(False).to_numpy(zero_copy_only=False))
    out: list[str | None] = [None] * n
    for row, text in zip(rows.tolist(), arr.take(pa.array(rows)).to_pylist(), strict=True):
        out[row] = text
    return out


def _peer_values(rule: Any, blames: str | None, captures: dict, text: str) -> list:
    """What a (non-self) finding names, in order of preference: the remote targets in its
    full text, then the rule's ``blames`` capture and other peer captures (over the full
    text too when the line itself lacks the ``blames`` group)."""
    if blames == "chief":  # the rule names no task: the line is about the chief's work
        return [*_remote_targets(text), ("chief", "chief")]
    if blames and blames not in captures:
        captures = {**_captures_in(rule, text), **captures}
    return _remote_targets(text) + _candidate_values(captures, blames)


class _MemoDirectory:
    """A :class:`PeerDirectory` that resolves each (group, value) once."""

    def __init__(self, directory: PeerDirectory):
        self._directory = directory
        self.nodes = directory.nodes
        self._memo: dict[tuple[str, str], tuple[str | None, str]] = {}

    def resolve(self, group: str, value: str) -> tuple[str | None, str]:
        key = (group, value)
        try:
            got = self._memo.get(key)
        except TypeError:  # an unhashable capture
            return self._directory.resolve(group, value)
        if got is None:
            got = self._memo[key] = self._directory.resolve(group, value)
        return got


def finding_texts(
    timeline: pd.DataFrame, findings: pd.DataFrame, *, columns: _Columns | None = None
) -> dict[Any, str]:
    """Each finding's full text: message, detail, and the level-less lines that belong to it.

    gRPC's ``Additional GRPC error information from remote target ...`` often follows the error
    line as separate, level-less lines of the same file: they belong to a leveled finding. A
    finding that is itself such a level-less line belongs with the line or two before it.

    A line continues a finding when it is level-less (format ``plain`` or none), of the same
    node and file, and within ``k`` (+2 for blank lines) lines of it, ``k`` lines on; the
    continuation stops at the first line that does not. Found for all findings at once (numpy,
    one step per ``k``); only the messages of the lines taken are converted to text.
    """
    if findings is None or findings.empty or timeline.empty:
        return {}
    columns = columns or _Columns(timeline)
    n = len(timeline)
    positions = timeline.index.get_indexer(findings.index)
    found = positions >= 0
    heads = positions[found]
    node, file, plain_at = columns.nodes[0], columns.files, columns.plain_at
    line, line_ok = columns.line_numbers
    # a missing node or file continues nothing (as NaN != NaN)
    head_ok = (node[heads] >= 0) & (file[heads] >= 0) & line_ok[heads]

    # a Python traceback's row stands at its first line ("Traceback ..."): the exception line
    # that ends it, after which TensorFlow's message goes on, lies its frames' lines further
    span = np.zeros(len(heads), dtype=np.int64)
    if "format" in timeline and "detail" in timeline and len(heads):
        tb = (timeline["format"].iloc[heads] == "python_traceback").to_numpy(dtype=bool)
        if tb.any():
            frames = _column(timeline["detail"].iloc[heads[tb]].to_frame(), "detail")
            span[tb] = [d.count("\n") + 1 if type(d) is str else 0 for d in frames]

    def extent(live: np.ndarray, steps: int, sign: int, frames: int = 0) -> np.ndarray:
        """For the findings ``live`` (indices into ``heads``): how many lines, one after another
        ``sign``-wards, continue each (``_continues`` and level-less); up to ``frames`` Python
        frame lines among them do not count against ``steps``."""
        count = np.zeros(len(heads), dtype=np.int64)
        spent = np.zeros(len(heads), dtype=np.int64)  # lines taken that are no frame
        live = live[head_ok[live]]
        for k in range(1, steps + frames + 1):
            rows = heads[live] + sign * k
            inside = (rows >= 0) & (rows < n)
            live, rows = live[inside], rows[inside]
            h = heads[live]
            end = line[h] + (span[live] if sign > 0 else 0)
            gap = (line[rows] - end) * sign
            ok = (node[rows] == node[h]) & (file[rows] == file[h]) & line_ok[rows]
            ok &= (gap > 0) & (gap <= 2 * k + 1)  # (a blank line may follow each line)
            ok[ok] = plain_at(rows[ok])
            live, rows = live[ok], rows[ok]
            if frames:
                spend = spent[live] + ~columns.frame_at(rows)  # type: ignore[union-attr]
                within = spend <= steps
                live, spend = live[within], spend[within]
                spent[live] = spend
            count[live] += 1
            if not len(live):
                break
        return count

    head_plain = plain_at(heads)
    # a leveled finding: the plain lines after it; a continuation itself: the lines before it
    after = extent(np.flatnonzero(~head_plain), CONTINUATION_LINES, +1, CONTINUATION_FRAMES)
    before = extent(np.flatnonzero(head_plain), CONTINUATION_BEFORE, -1)

    taken = np.zeros(n, dtype=bool)
    taken[heads] = True
    for k in range(1, int(after.max(initial=0)) + 1):
        taken[heads[after >= k] + k] = True
    for k in range(1, CONTINUATION_BEFORE + 1):
        taken[heads[before >= k] - k] = True
    need = np.flatnonzero(taken)  # a finding's lines are consecutive here too
    part = timeline[[c for c in ("message", "detail") if c in timeline]].iloc[need]
    message = [v if type(v) is str else _text(v) for v in _column(part, "message")]
    detail = [v if type(v) is str else _text(v) for v in _column(part, "detail")]
    at = np.searchsorted(need, heads)

    texts: dict[Any, str] = {}
    for label, i, b, a in zip(
        findings.index[found].tolist(), at.tolist(), before.tolist(), after.tolist(), strict=True
    ):
        if a == b == 0:  # the line alone: "\n".join of its non-empty message and detail
            m, d = message[i], detail[i]
            texts[label] = m + "\n" + d if m and d else m or d
        else:
            lines = [*message[i - b : i], message[i], detail[i], *message[i + 1 : i + a + 1]]
            texts[label] = "\n".join([x for x in lines if x])
    return texts


def drop_transient_waits(
    blames: pd.DataFrame,
    facts: dict[str, Facts],
    stuck: set[str] | frozenset[str] = frozenset(),
    joined: dict[str, Any] | None = None,
    started: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """Forget start-up waits for a task that came up within ``START_WAIT_S``: normal start-up.

    A wait counts when the awaited task left no log, or started ``START_WAIT_S`` after the
    first wait, or the same node kept waiting for it that long — said again, or said once by a
    node that is ``stuck`` (it never got past start-up) while the record went on that long and
    the awaited task did not join after the wait (``joined``: when its own log first says it
    connected or trained).

    A peer refusing or not answering a connection is a wait too when the node that logged it
    had not started its own server yet and then did (``started``: when its log first says its
    server started): it was still starting, and retried until the peer was up (a tf.data
    service worker's heartbeats to a dispatcher that starts beside it).
    """
    joined = joined or {}
    started = started or {}
    ends = [f.last_time for f in facts.values() if f.last_time is not None]
    end = max((t for t in ends if not pd.isna(t)), default=None)
    if blames.empty:
        return blames
    waiting = blames["category"] == "session_blocked"
    if started:
        up = pd.to_datetime(blames["victim"].map(started), utc=True)
        before_own_start = (_utc(blames["ts"]) < up).fillna(False).to_numpy(dtype=bool)
        waiting |= (blames["category"] == "connection_unavailable") & before_own_start
    waits = blames[~blames["self"] & waiting]
    keep = pd.Series(True, index=blames.index)
    for (victim, blamed), group in waits.groupby(["victim", "blamed"]):
        times = _utc(group["ts"])
        f = facts.get(str(blamed))
        late_start = (
            f is not None
            and f.first_time is not None
            and not pd.isna(f.first_time)
            and _seconds(f.first_time - times.min()) >= START_WAIT_S
        )
        long_wait = _seconds(times.max() - times.min()) >= START_WAIT_S
        waiter = facts.get(str(victim))
        own_start = started.get(str(victim))
        went_on = own_start is not None and bool((times < own_start).all())
        if (
            waiter is not None
            and not went_on  # (it started after these waits: it did not wait on, stuck)
            and str(victim) in stuck
            and not _joined_after(joined.get(str(blamed)), times.min())
            and end is not None
        ):
            # a stuck waiter waits on, silently, until the job is ended
            long_wait = long_wait or _seconds(end - times.min()) >= START_WAIT_S
        if not (f is None or f.missing or late_start or long_wait):
            keep[group.index] = False
    return blames[keep.to_numpy()]


def _joined_after(joined: Any, since: Any) -> bool:
    return joined is not None and not pd.isna(joined) and joined >= since


def mark_early(blames: pd.DataFrame, errors: pd.DataFrame) -> pd.DataFrame:
    """Flag each blame ``early`` when it comes with the blamer's first error.

    A blame logged well after the blamer's own failure began (teardown noise: reporting an
    error to a peer that is already gone) says little about who failed first.
    """
    if blames.empty or errors.empty:
        return blames.assign(early=True)
    ns = "datetime64[ns]"
    first_error = (
        pd.Series(_utc(errors["ts"]).to_numpy(dtype=ns)).groupby(errors["node"].to_numpy()).min()
    )
    grace = np.timedelta64(pd.Timedelta(seconds=LATE_BLAME_S).value, "ns")
    # NaT (a victim without errors, a missing time) compares False: not late
    first = first_error.reindex(blames["victim"].to_numpy()).to_numpy(dtype=ns)
    late = _utc(blames["ts"]).to_numpy(dtype=ns) > first + grace
    return blames.assign(early=~np.asarray(late, dtype=bool))


def _errors(findings: pd.DataFrame) -> pd.DataFrame:
    """Non-benign findings of severity error or fatal, oldest first."""
    if findings is None or findings.empty:
        return pd.DataFrame(
            columns=[
                "ts",
                "node",
                "file",
                "line_no",
                "message",
                "pattern_id",
                "category",
                "severity",
                "captures",
            ]
        )
    keep = ~findings["benign"].fillna(False).astype(bool) & findings["severity"].isin(
        ERROR_SEVERITIES
    )
    # filtered and time-sorted in one take of all columns: the order from the times alone
    rows = np.flatnonzero(keep.to_numpy(dtype=bool))
    times = findings[["ts"]].iloc[rows].reset_index(drop=True)
    f = findings.iloc[rows[times.sort_values("ts", kind="stable").index.to_numpy()]]
    return f.assign(node=f["node"].astype(str))


def _blaming(findings: pd.DataFrame) -> pd.DataFrame:
    """Non-benign findings that may name a culprit (warnings too: stragglers, waits)."""
    if findings is None or findings.empty:
        return pd.DataFrame(
            columns=["ts", "node", "pattern_id", "category", "severity", "captures"]
        )
    f = findings[_blaming_rows(findings)]
    return f.assign(node=f["node"].astype(str))


def _blaming_rows(findings: pd.DataFrame) -> np.ndarray:
    """Which findings :func:`_blaming` keeps (a mask)."""
    keep = ~findings["benign"].fillna(False).astype(bool) & findings["severity"].isin(
        BLAME_SEVERITIES
    )
    return keep.to_numpy(dtype=bool)
