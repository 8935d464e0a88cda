"""classify(): winners, benign first, prefilter correctness, timeouts, input shapes, precision."""

from __future__ import annotations

import json
import random
import textwrap
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer.classify import classify
from analyzer.rules import example_event, load_rules, split_example_line

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_LOGS = ROOT / "sample_logs"
RULES = load_rules()

# Real lines (TensorFlow 2.21 reproductions and public issue threads), split like the timeline.
LINES = [
    # 0 benign start-up noise
    "I0000 00:00:1795322803.1 6809 cpu_feature_guard.cc:227] This TensorFlow binary is "
    "optimized to use available CPU instructions in performance-critical operations.",
    # 1 benign: server started
    "I0000 00:00:1795322925.038755    8546 grpc_server_lib.cc:467] Started server with target: "
    "grpc://localhost:58111",
    # 2 session blocked
    "I0000 00:00:1795322935.087451    8897 master.cc:278] CreateSession still waiting for "
    "response from worker: /job:worker/replica:0/task:1",
    # 3 address in use
    "E0000 00:00:1795322892.272764    8135 grpc_server_lib.cc:618] UNKNOWN: Could not start "
    "gRPC server",
    # 4 nothing
    "INFO:tensorflow:step 100 loss 0.1234",
    # 5 dtype
    "tensorflow.python.framework.errors_impl.InvalidArgumentError: cannot compute AddV2 as "
    "input #1(zero-based) was expected to be a float tensor but is a int64 tensor [Op:AddV2]",
    # 6 nothing
    "Epoch 1/10",
    # 7 heartbeat timeout blaming worker 1
    "tensorflow.python.framework.errors_impl.UnavailableError: Task "
    "/job:worker/replica:0/task:1 heartbeat timeout. This indicates that the remote task has "
    "failed, got preempted, or crashed unexpectedly.",
]


def frame(lines: list[str], details: dict[int, str] | None = None, arrow: bool = True):
    rows = []
    for i, line in enumerate(lines):
        ev = split_example_line(line)
        rows.append(
            {
                "message": ev["message"],
                "detail": (details or {}).get(i),
                "level": ev["level"],
                "source": ev["source"],
                "format": ev["format"],
                "raw": line,
                "node": "worker:0",
                "line_no": i + 1,
            }
        )
    df = pd.DataFrame(rows)
    if arrow:
        df = df.astype({c: pd.ArrowDtype(pa.large_string()) for c in df.columns if c != "line_no"})
    return df


def test_winners_on_real_lines():
    res = classify(frame(LINES), RULES)
    got = dict(zip(res.findings["row"], res.findings["pattern_id"], strict=True))
    assert got == {
        0: "benign.cpu_instructions",
        1: "benign.server_started",
        2: "session.create_session_waiting",
        3: "server.could_not_start",
        5: "dtypes.expected_tensor_but_is",
        7: "coordination.heartbeat_timeout",
    }
    f = res.findings.set_index("row")
    assert bool(f.loc[0, "benign"]) and not bool(f.loc[7, "benign"])
    assert f.loc[7, "category"] == "coordination_failure"
    assert json.loads(f.loc[7, "captures"]) == {"peer_task": "/job:worker/replica:0/task:1"}
    assert f.loc[7, "blames"] == "/job:worker/replica:0/task:1"
    assert f.loc[3, "blames"] == "self"
    assert json.loads(f.loc[5, "captures"])["actual_dtype"] == "int64"
    assert res.problems == []


def test_findings_index_is_the_input_index():
    df = frame(LINES)
    df.index = pd.RangeIndex(100, 100 + len(df))
    res = classify(df, RULES)
    assert list(res.findings.index) == [100 + r for r in res.findings["row"]]


def test_object_dtype_and_missing_optional_columns():
    df = pd.DataFrame({"message": [split_example_line(x)["message"] for x in LINES]})
    res = classify(df, RULES)
    # rules with level/format conditions cannot fire without those columns; the rest do.
    assert "coordination.heartbeat_timeout" in set(res.findings["pattern_id"])
    assert len(classify(df.iloc[:0], RULES).findings) == 0


def test_detail_field_is_searched():
    lines = ["TypeError: in user code:"]
    detail = {
        0: "    TypeError: Input 'y' of 'AddV2' Op has type int64 that does not match type "
        "float32 of argument 'x'."
    }
    res = classify(frame(lines, detail), RULES)
    assert list(res.findings["pattern_id"]) == ["dtypes.op_input_type"]
    caps = json.loads(res.findings["captures"].iloc[0])
    assert caps["expected_dtype"] == "float32"


def test_benign_rules_win_over_error_rules(tmp_path):
    d = tmp_path / "u"
    d.mkdir()
    (d / "greedy.yaml").write_text(
        textwrap.dedent(
            """\
            rules:
              - id: user.anything_server
                title: greedy
                category: node_crash
                severity: error
                priority: 1000
                match: 'server'
                keywords: [server]
            """
        )
    )
    rules = load_rules(extra_dirs=[d])
    res = classify(frame(LINES), rules)
    f = res.findings.set_index("row")
    assert f.loc[1, "pattern_id"] == "benign.server_started"  # benign first, whatever priority
    assert f.loc[3, "pattern_id"] == "user.anything_server"  # higher priority than server.*


def test_catastrophic_user_rule_times_out_and_run_completes(tmp_path):
    d = tmp_path / "u"
    d.mkdir()
    (d / "evil.yaml").write_text(
        textwrap.dedent(
            """\
            rules:
              - id: user.evil
                title: catastrophic backtracking
                category: node_crash
                severity: error
                priority: 100
                match: '(a+)+$'
                keywords: [aaaa]
            """
        )
    )
    rules = load_rules(extra_dirs=[d])
    lines = ["a" * 50_000 + "!", *LINES, "a" * 50_000 + "?"]
    res = classify(frame(lines), rules, timeout=0.2)
    assert len(res.problems) == 1, res.problems
    assert "user.evil" in res.problems[0] and "timed out" in res.problems[0]
    assert "worker:0 line 1" in res.problems[0]
    assert "rule disabled for the rest of this batch of files" in res.problems[0]
    # the other rules still ran
    assert "coordination.heartbeat_timeout" in set(res.findings["pattern_id"])


def _mixed_sample(seed: int = 7) -> tuple[list[str], dict[int, str]]:
    """Every example line of every rule, plus noise, shuffled."""
    rnd = random.Random(seed)
    items: list[tuple[str, str | None]] = []
    for rule in RULES:
        for ex in rule.examples:
            ev = example_event(ex)
            items.append((ex.line, ev["detail"]))
    noise = [f"INFO:tensorflow:step {i} loss {rnd.random():.3f}" for i in range(200)] + [
        f"Epoch {i}/10" for i in range(50)
    ]
    items += [(n, None) for n in noise]
    rnd.shuffle(items)
    return [x for x, _ in items], {i: d for i, (_, d) in enumerate(items) if d}


def test_prefilter_gives_the_same_findings_as_brute_force():
    lines, details = _mixed_sample()
    df = frame(lines, details)
    fast = classify(df, RULES)
    slow = classify(df, RULES, prefilter=False)
    pd.testing.assert_frame_equal(fast.findings, slow.findings)
    assert fast.candidates < len(df)
    assert len(fast.findings) > 100


def test_repeated_rows_get_the_findings_of_matching_each_row():
    lines, details = _mixed_sample()
    order = list(range(len(lines))) * 3
    random.Random(3).shuffle(order)
    df = frame(
        [lines[i] for i in order], {k: details[i] for k, i in enumerate(order) if i in details}
    )
    fast = classify(df, RULES)  # each distinct row matched once, its finding given to every copy
    slow = classify(df, RULES, prefilter=False)  # every row matched on its own
    pd.testing.assert_frame_equal(fast.findings, slow.findings)
    assert len(fast.findings) > 300


_ALPHABET = st.sampled_from(
    ["Socket closed", "heartbeat timeout", "OOM when allocating", "Killed", "a", " ", "x", ":"]
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(_ALPHABET, max_size=6).map("".join), min_size=1, max_size=20))
def test_prefilter_equivalence_property(messages):
    df = pd.DataFrame({"message": messages, "level": None, "format": "plain"})
    fast = classify(df, RULES)
    slow = classify(df, RULES, prefilter=False)
    pd.testing.assert_frame_equal(fast.findings, slow.findings)


def test_parallel_prefilter_on_a_large_column():
    from analyzer.classify import _PARALLEL_ROWS

    n = _PARALLEL_ROWS + 123
    messages = ["INFO:tensorflow:step 1 loss 0.5"] * n
    messages[5] = "tensorflow.python.framework.errors_impl.UnavailableError: Socket closed"
    messages[n // 2] = "Killed"
    messages[-1] = "E0000 00:00:1.1 1 grpc_server_lib.cc:618] UNKNOWN: Could not start gRPC server"
    res = classify(pd.DataFrame({"message": messages}), RULES)
    assert res.findings[["row", "pattern_id"]].values.tolist() == [
        [5, "grpc.unavailable.socket_closed"],
        [n // 2, "memory.shell_killed"],
        [n - 1, "server.could_not_start"],
    ]


def test_rule_without_keywords_is_always_a_candidate(tmp_path):
    d = tmp_path / "u"
    d.mkdir()
    (d / "nokw.yaml").write_text(
        textwrap.dedent(
            """\
            rules:
              - id: user.digits
                title: digits only
                category: node_crash
                severity: error
                match: '^\\d{3,}$'
            """
        )
    )
    rules = load_rules(extra_dirs=[d])
    res = classify(frame(["12345", "abc", *LINES]), rules)
    assert res.findings.set_index("row").loc[0, "pattern_id"] == "user.digits"


# --------------------------------------------------------------------------- precision


def _healthy_dir() -> Path | None:
    p = SAMPLE_LOGS / "healthy"
    return p if p.is_dir() and any(p.rglob("*.log*")) else None


def _read_lines(folder: Path) -> pd.DataFrame:
    """The real ingest when it is there, else a tiny line splitter of our own."""
    try:
        from analyzer.ingest import ingest
        from analyzer.timeline import to_pandas

        return to_pandas(ingest([folder]).timeline)
    except ImportError:  # pragma: no cover
        rows = []
        for f in sorted(folder.rglob("*.log")):
            for i, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
                ev = split_example_line(line)
                rows.append({**ev, "detail": None, "node": f.stem, "line_no": i, "raw": line})
        return pd.DataFrame(rows)


@pytest.mark.skipif(_healthy_dir() is None, reason="sample_logs/healthy not recorded yet")
def test_healthy_logs_give_no_error_findings():
    events = _read_lines(_healthy_dir())
    res = classify(events, RULES)
    f = res.findings
    bad = f[~f["benign"] & f["severity"].isin(["error", "fatal"])]
    shown = [f"{r.pattern_id}: {events['message'].iloc[r.row][:160]}" for r in bad.itertuples()]
    assert bad.empty, "\n".join(shown)


def _scenarios_with_a_telling_line() -> list[Path]:
    """Scenarios whose root cause leaves a line of its own (not a killed or silent task, not a
    healthy run)."""
    folders = sorted(p.parent for p in SAMPLE_LOGS.glob("*/truth.json"))
    return [
        f
        for f in folders
        if json.loads((f / "truth.json").read_text()).get("root_cause_category")
        not in (None, "none", "node_crash")
    ]


@pytest.mark.parametrize("folder", _scenarios_with_a_telling_line(), ids=lambda p: p.name)
def test_sample_logs_show_their_root_cause_category(folder):
    """Recall on the lab's real logs: some non-benign finding carries the truth's category."""
    truth = json.loads((folder / "truth.json").read_text())
    category = truth.get("root_cause_category")
    res = classify(_read_lines(folder), RULES)
    f = res.findings
    found = set(f.loc[~f["benign"], "category"])
    assert category in found, f"{folder.name}: {category} not in {sorted(found)}"


def test_a_harmless_warnings_continuation_lines_are_harmless_too() -> None:
    from analyzer.parse import Work, process_source
    from analyzer.rules import load_rules
    from analyzer.sources import Source

    first = (
        b"2021-09-09 01:04:49.556179: W ./tensorflow/core/distributed_runtime/eager/"
        b"destroy_tensor_handle_node.h:57] Ignoring an error encountered when deleting remote "
        b"tensors handles: Invalid argument: Unable to find the relevant tensor remote_handle\n"
    )
    peer = (
        b"Additional GRPC error information from remote target /job:worker/replica:0/task:0:\n"
        b':{"created":"@1631149489.552718417","description":"Error received from peer '
        b'ipv4:10.122.28.50:8470","grpc_message":"Unable to find","grpc_status":3}\n'
    )
    work = Work(max_bytes=1 << 20, rules=load_rules())

    def table(data: bytes):
        return process_source(Source(Path("w.log"), "w.log", data=data), work).parsed.table

    harmless = table(first + peer)
    assert harmless["benign"].to_pylist() == [True, True, True]
    # a record of a format no rule parses is its own, continuation or not
    own = b"[0824 14:30:39 @input_source.py:204] ERR Deadline exceeded while waiting for data\n"
    assert table(first + own)["benign"].to_pylist() == [True, False]
    # the same peer lines after a warning that is not harmless keep their own verdict
    alone = table(first.replace(b"Ignoring an error encountered when deleting", b"Failed") + peer)
    assert alone["benign"].to_pylist()[2] is False
    assert alone["pattern_id"].to_pylist()[2] is not None
