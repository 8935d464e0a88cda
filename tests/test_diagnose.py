"""The diagnosis: real sample logs (and variants of them) plus small hand-built cases."""

from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

import analyzer
from analyzer.diagnose import (
    Facts,
    PeerDirectory,
    check_consistency,
    detect_silence,
    diagnose,
    estimate_clock_offsets,
    finding_texts,
    resolve_blames,
)
from analyzer.ingest import Ingest, NodeInfo
from analyzer.model import STATUSES
from analyzer.rules import Rule, RuleSet
from analyzer.timeline import empty_table
from tests.conftest import sample_folders

FOLDERS = sample_folders()
T0 = pd.Timestamp("2026-11-22T04:10:00Z")


def _truth(folder: Path) -> dict:
    return json.loads((folder / "truth.json").read_text())


def _expected(truth: dict) -> tuple[str | None, str]:
    return truth.get("first_failing_node"), truth.get("root_cause_category") or "none"


def _copy_logs(folder: Path, dest: Path) -> Path:
    shutil.copytree(folder, dest, ignore=shutil.ignore_patterns("truth.json"))
    return dest


def _log_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.name != "truth.json")


def _node_files(truth: dict, node: str) -> list[str]:
    return list((truth.get("node_files") or {}).get(node) or [])


def _logged_nodes(folder: Path, *, but_root: bool = False) -> list[str]:
    truth = _truth(folder)
    root = truth.get("first_failing_node") if but_root else None
    return [n for n in truth.get("nodes", []) if n != root and _node_files(truth, n)]


# Variants apply only where the scenario has what they change: chosen here, not skipped later.
THREE_LOGGED = [f for f in FOLDERS if len(_logged_nodes(f)) >= 3]
ROOT_LOGGED = [
    f
    for f in FOLDERS
    if _truth(f).get("first_failing_node")
    and _node_files(_truth(f), _truth(f)["first_failing_node"])
]
FAILURE_AND_THREE_OTHERS = [
    f
    for f in FOLDERS
    if _truth(f).get("first_failing_node") and len(_logged_nodes(f, but_root=True)) >= 3
]


# --------------------------------------------------------------------------- sample logs


@pytest.mark.skipif(not FOLDERS, reason="no sample_logs/*/truth.json yet")
@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_sample_verdict_matches_truth(folder: Path) -> None:
    truth = _truth(folder)
    run = analyzer.load(folder)
    rc = run.root_cause
    assert (rc.node, rc.category) == _expected(truth), rc.summary
    assert 0.0 <= rc.confidence <= 1.0
    assert rc.summary
    statuses = {n.node: n.status for n in run.diagnosis.nodes}
    assert set(statuses.values()) <= set(STATUSES)
    if rc.node is None:
        assert "failed" not in statuses.values()
        return
    assert statuses[rc.node] == "failed"
    assert rc.task == truth.get("task")
    assert rc.evidence, "a verdict needs an evidence chain"
    assert all(e.why and e.node for e in rc.evidence)
    assert rc.remediation
    for node in truth.get("missing_nodes") or []:
        if node != rc.node:
            assert statuses.get(node) == "missing"


@pytest.mark.skipif(not FOLDERS, reason="no sample_logs/*/truth.json yet")
@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_sample_victims_lag_behind_root(folder: Path) -> None:
    diagnosis = analyzer.load(folder).diagnosis
    if diagnosis.root_cause.node is None:
        return
    for node in diagnosis.nodes:
        if node.status == "victim" and node.lag_s is not None:
            assert node.lag_s > -5.0, f"{node.node} failed {node.lag_s} s before the root cause"


@pytest.mark.skipif(not FOLDERS, reason="no sample_logs/*/truth.json yet")
@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_renamed_files_give_the_same_verdict(folder: Path, tmp_path: Path) -> None:
    """Only the contents tell the roles: every file gets a meaningless name."""
    truth = _truth(folder)
    dest = tmp_path / "renamed"
    dest.mkdir()
    for i, path in enumerate(_log_files(folder)):
        suffix = "".join(s for s in path.suffixes if s in (".gz", ".zst", ".bz2", ".xz"))
        shutil.copy(path, dest / f"log{i:02d}.txt{suffix}")
    rc = analyzer.load(dest).root_cause
    assert (rc.node, rc.category) == _expected(truth), rc.summary


@pytest.mark.skipif(not FOLDERS, reason="no sample_logs/*/truth.json yet")
@pytest.mark.parametrize("folder", THREE_LOGGED, ids=[f.name for f in THREE_LOGGED])
def test_shifted_clock_keeps_the_verdict(folder: Path) -> None:
    """One node's zone-less times read as Tokyo time (−9 h): the verdict stays right."""
    truth = _truth(folder)
    nodes = [n for n in truth.get("nodes", []) if _node_files(truth, n)]
    for node in (truth.get("first_failing_node") or nodes[0], _victim_of(truth, nodes)):
        run = analyzer.load(folder, node_tz={node: "Asia/Tokyo"})
        rc = run.root_cause
        assert (rc.node, rc.category) == _expected(truth), f"{node} shifted: {rc.summary}"


def _shift_text(text: str, seconds: int) -> str:
    """Move every timestamp of a log (absl epoch and ``YYYY-MM-DD HH:MM:SS``) by ``seconds``."""
    delta = pd.Timedelta(seconds=seconds)

    def epoch(m: re.Match) -> str:
        return f"{m[1]}{int(m[2]) + seconds}{m[3]}"

    def dated(m: re.Match) -> str:
        return (pd.Timestamp(m[0].replace(",", ".")) + delta).strftime("%Y-%m-%d %H:%M:%S")

    text = re.sub(r"(\b[IWEF]\d{4} 00:00:)(\d{10})(\.\d+)", epoch, text)
    return re.sub(r"\b\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?=[,.]\d)", dated, text)


@pytest.mark.skipif(not FOLDERS, reason="no sample_logs/*/truth.json yet")
@pytest.mark.parametrize("folder", THREE_LOGGED, ids=[f.name for f in THREE_LOGGED])
def test_skewed_clock_is_estimated_and_verdict_kept(folder: Path, tmp_path: Path) -> None:
    """Rewrite every timestamp of one node by ±1 h: offset found, verdict unchanged."""
    truth = _truth(folder)
    nodes = [n for n in truth.get("nodes", []) if _node_files(truth, n)]
    for node, seconds in (
        (truth.get("first_failing_node") or nodes[0], 3600),
        (_victim_of(truth, nodes), -3600),
    ):
        dest = _copy_logs(folder, tmp_path / f"{node.replace(':', '_')}{seconds}")
        for rel in _node_files(truth, node):
            path = dest / rel
            if path.suffix == ".gz":
                text = gzip.decompress(path.read_bytes()).decode()
                path.write_bytes(gzip.compress(_shift_text(text, seconds).encode()))
            else:
                path.write_text(_shift_text(path.read_text(), seconds))
        d = analyzer.load(dest).diagnosis
        assert (d.root_cause.node, d.root_cause.category) == _expected(truth), d.root_cause.summary
        assert d.clock_offsets.get(node) == pytest.approx(seconds, abs=60), d.clock_offsets


def _victim_of(truth: dict, nodes: list[str]) -> str:
    return next(n for n in nodes if n != truth.get("first_failing_node"))


@pytest.mark.skipif(not FOLDERS, reason="no sample_logs/*/truth.json yet")
@pytest.mark.parametrize("folder", ROOT_LOGGED, ids=[f.name for f in ROOT_LOGGED])
def test_removed_root_log(folder: Path, tmp_path: Path) -> None:
    """Without the root node's log the node becomes `missing` or stays the verdict."""
    truth = _truth(folder)
    root = truth.get("first_failing_node")
    files = _node_files(truth, root) if root else []
    dest = _copy_logs(folder, tmp_path / "cut")
    for rel in files:
        (dest / rel).unlink()
    run = analyzer.load(dest)
    statuses = {n.node: n.status for n in run.diagnosis.nodes}
    rc = run.root_cause
    if root not in statuses:  # no peer's cluster spec names it: nothing to say about it
        return
    assert statuses[root] in ("missing", "failed")
    if rc.node not in (root, None):  # another node failed the same way on its own
        assert rc.category == truth["root_cause_category"], rc.summary
        assert run.diagnosis.node(rc.node).first_error_category == rc.category
        return
    # either the node without log is the verdict, or a healthy-looking verdict warns about it
    assert rc.ambiguity and root in rc.ambiguity
    if rc.node == root:
        assert rc.confidence < 0.9


@pytest.mark.skipif(not FOLDERS, reason="no sample_logs/*/truth.json yet")
@pytest.mark.parametrize(
    "folder", FAILURE_AND_THREE_OTHERS, ids=[f.name for f in FAILURE_AND_THREE_OTHERS]
)
def test_removed_victim_log_keeps_the_verdict(folder: Path, tmp_path: Path) -> None:
    truth = _truth(folder)
    root = truth.get("first_failing_node")
    nodes = [n for n in truth.get("nodes", []) if n != root and _node_files(truth, n)]
    # remove the victim whose log matters least: the last one by name
    victim = sorted(nodes)[-1]
    dest = _copy_logs(folder, tmp_path / "cut")
    for rel in _node_files(truth, victim):
        (dest / rel).unlink()
    run = analyzer.load(dest)
    assert (run.root_cause.node, run.root_cause.category) == _expected(truth)
    assert run.diagnosis.node(victim).status == "missing"


# --------------------------------------------------------------------------- hand-built


def _rules() -> RuleSet:
    def rule(rid, category, match, blames=None, severity="error"):
        import regex

        return Rule(
            id=rid,
            title=rid,
            category=category,
            severity=severity,
            match=match,
            blames=blames,
            compiled=regex.compile(match),
            remediation=f"fix {rid}",
        )

    return RuleSet(
        [
            rule(
                "t.peer",
                "connection_unavailable",
                r"(?P<peer_task>/job:\w+/replica:0/task:\d+)",
                "peer_task",
            ),
            rule(
                "t.addr", "connection_unavailable", r"refused (?P<peer_address>\S+)", "peer_address"
            ),
            rule("t.bind", "address_in_use", r"Address already in use", "self"),
            rule("t.ps", "connection_unavailable", r"ps (?P<ps_index>\d+) failed", "ps_index"),
        ]
    )


CLUSTER = {
    "chief": ["10.0.0.1:2222"],
    "ps": ["10.0.0.2:2222"],
    "worker": ["10.0.0.3:2222", "10.0.0.4:2222"],
}


def _facts(**clusters) -> dict[str, Facts]:
    out = {}
    for node in ("chief:0", "ps:0", "worker:0", "worker:1"):
        job, _, index = node.partition(":")
        f = Facts(node, files=[f"{job}-{index}.log"], lines=10)
        f.cluster = clusters.get(node.replace(":", ""), CLUSTER)
        f.task = {"type": job, "index": int(index)}
        out[node] = f
    return out


def _findings(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    frame["benign"] = False
    frame["severity"] = frame.get("severity", "error")
    frame["file"] = frame["node"].str.replace(":", "-") + ".log"
    frame["line_no"] = range(1, len(frame) + 1)
    frame["level"] = "ERROR"
    return frame


def test_blame_resolves_task_address_and_index() -> None:
    facts = _facts()
    facts["ps:0"].address = "10.0.0.2:2222"
    findings = _findings(
        [
            {
                "ts": T0,
                "node": "chief:0",
                "message": "x",
                "pattern_id": "t.peer",
                "category": "connection_unavailable",
                "captures": {"peer_task": "/job:ps/replica:0/task:0"},
            },
            {
                "ts": T0,
                "node": "worker:0",
                "message": "x",
                "pattern_id": "t.addr",
                "category": "connection_unavailable",
                "captures": {"peer_address": "10.0.0.2:2222"},
            },
            {
                "ts": T0,
                "node": "worker:1",
                "message": "x",
                "pattern_id": "t.ps",
                "category": "connection_unavailable",
                "captures": {"ps_index": "0"},
            },
            {
                "ts": T0,
                "node": "ps:0",
                "message": "x",
                "pattern_id": "t.bind",
                "category": "address_in_use",
                "captures": {},
            },
        ]
    )
    blames = resolve_blames(findings, PeerDirectory(facts), _rules())
    got = dict(zip(blames["victim"], blames["blamed"], strict=True))
    assert got == {"chief:0": "ps:0", "worker:0": "ps:0", "worker:1": "ps:0", "ps:0": "ps:0"}
    assert blames.set_index("victim").loc["ps:0", "self"]


def test_blame_ignores_address_known_only_to_an_odd_spec() -> None:
    wrong = {**CLUSTER, "worker": ["10.0.0.3:9999", "10.0.0.4:2222"]}
    facts = _facts(worker1=wrong)
    consistency = check_consistency(facts)
    assert consistency.spec_outliers == {"worker:1"}
    directory = PeerDirectory(facts, consistency.majority_nodes)
    node, how = directory.resolve("peer_address", "10.0.0.3:9999")
    assert node is None and "disagrees" in how
    assert directory.resolve("peer_address", "10.0.0.3:2222")[0] == "worker:0"


def test_a_launchers_program_name_is_read_as_a_log_files_name() -> None:
    directory = PeerDirectory(_facts())
    assert directory.resolve("peer_program", "tf-worker-1")[0] == "worker:1"
    assert directory.resolve("peer_program", "tf-ps-0")[0] == "ps:0"
    assert directory.resolve("peer_program", "tf-worker-7")[0] is None  # no such task
    assert directory.resolve("peer_program", "dashboard")[0] is None


def test_remote_target_in_continuation_lines_is_blame() -> None:
    timeline = pd.DataFrame(
        {
            "ts": [T0, T0, T0],
            "node": ["worker:0"] * 3,
            "file": ["w.log"] * 3,
            "line_no": [7, 8, 9],
            "format": ["absl", "plain", "plain"],
            "message": [
                "Local rendezvous is aborting with status: UNAVAILABLE",
                "Additional GRPC error information from remote target /job:ps/replica:0/task:0",
                ":UNKNOWN:Error received from peer",
            ],
            "detail": [None, None, None],
        }
    )
    findings = _findings(
        [
            {
                "ts": T0,
                "node": "worker:0",
                "message": "Local rendezvous",
                "pattern_id": "t.none",
                "category": "connection_unavailable",
                "captures": {},
            }
        ]
    )
    texts = finding_texts(timeline, findings)
    blames = resolve_blames(findings, PeerDirectory(_facts()), _rules(), texts)
    assert list(blames["blamed"]) == ["ps:0"]


def test_frames_after_an_exception_do_not_use_up_its_continuation_lines() -> None:
    # TensorFlow's "Graph execution error:" lists the op's definition frame by frame before
    # the status that says what failed; that status still belongs to the exception
    frames = [f'  File "/app/f{i}.py", line {i}, in f{i}' for i in range(20)]
    messages = [
        "tensorflow.python.framework.errors_impl.DeadlineExceededError: Graph execution error:",
        "Detected at node CollectiveReduceV2 defined at (most recent call last):",
        *frames,
        "Collective ops is aborted by: Deadline Exceeded",
        "RPC: /tensorflow.CoordinationService/Heartbeat",
        *[f"plain line {i}" for i in range(20)],
    ]
    n = len(messages)
    timeline = pd.DataFrame(
        {
            "ts": [T0] * n,
            "node": ["worker:1"] * n,
            "file": ["w.log"] * n,
            "line_no": list(range(10, 10 + n)),
            "format": ["python_traceback", *["plain"] * (n - 1)],
            "message": messages,
            "detail": [None] * n,
        }
    )
    finding = {"ts": T0, "node": "worker:1", "message": messages[0], "captures": {}}
    finding |= {"pattern_id": "t.none", "category": "deadline_exceeded"}
    text = finding_texts(timeline, _findings([finding]))[0]
    assert "RPC: /tensorflow.CoordinationService/Heartbeat" in text
    # frames are free, other lines are not: the budget still ends the continuation
    taken = [f"plain line {i}" for i in range(20) if f"plain line {i}\n" in text + "\n"]
    assert 0 < len(taken) < 20


def test_spec_mismatch_names_the_odd_one_out() -> None:
    wrong = {**CLUSTER, "worker": ["10.0.0.3:9999", "10.0.0.4:2222"]}
    consistency = check_consistency(_facts(worker1=wrong))
    assert consistency.spec_outliers == {"worker:1"}
    assert any(
        "worker:0 at 10.0.0.3:9999 instead of 10.0.0.3:2222" in m for m in consistency.messages
    )


def test_spec_mismatch_task_outside_its_spec_and_shared_address() -> None:
    shared = {**CLUSTER, "worker": ["10.0.0.3:2222", "10.0.0.3:2222"]}
    facts = {n: f for n, f in _facts().items() if n != "worker:1"}
    facts["worker:0"].cluster = shared
    facts["chief:0"].cluster = shared
    facts["ps:0"].cluster = {"ps": ["10.0.0.2:2222"]}
    facts["ps:0"].task = {"type": "ps", "index": 3}
    consistency = check_consistency(facts)
    assert "ps:0" in consistency.spec_outliers
    assert "10.0.0.3:2222" in consistency.shared_addresses


def test_version_outlier() -> None:
    facts = _facts()
    for f in facts.values():
        f.versions = {"tensorflow": "2.21.0"}
    facts["worker:1"].versions = {"tensorflow": "2.15.1"}
    consistency = check_consistency(facts)
    assert consistency.version_outliers.keys() == {"worker:1"}


def _timed(facts: dict[str, Facts], first: dict[str, float], last: dict[str, float]) -> None:
    for node, f in facts.items():
        f.first_time = T0 + pd.Timedelta(seconds=first[node])
        f.last_time = T0 + pd.Timedelta(seconds=last[node])
        f.ending = "clean"


def test_silence_is_a_mid_run_stop_before_peers_fail() -> None:
    facts = _facts()
    _timed(
        facts,
        dict.fromkeys(facts, 0.0),
        {"chief:0": 60, "ps:0": 30, "worker:0": 61, "worker:1": 61},
    )
    facts["ps:0"].ending = "mid-run"
    errors = _findings(
        [
            {
                "ts": T0 + pd.Timedelta(seconds=31),
                "node": "chief:0",
                "message": "x",
                "pattern_id": "t.none",
                "category": "connection_unavailable",
                "captures": {},
            }
        ]
    )
    blames = resolve_blames(errors.iloc[:0], PeerDirectory(facts), _rules())
    clock = estimate_clock_offsets(facts, blames)
    assert detect_silence(facts, errors, blames, clock) == {"ps:0": 31.0}
    # the same stop without anybody failing after it is not a silent death
    assert detect_silence(facts, errors.iloc[:0], blames, clock) == {}


def test_clock_offset_of_one_node_is_found_and_corrected() -> None:
    facts = _facts()
    shift = -9 * 3600.0
    _timed(
        facts,
        {"chief:0": 0.0, "ps:0": 1.0, "worker:0": 0.5, "worker:1": shift + 0.7},
        {"chief:0": 60, "ps:0": 30, "worker:0": 61, "worker:1": shift + 61},
    )
    blames = pd.DataFrame(
        {
            "row": [1, 2, 3],
            "victim": ["chief:0", "worker:0", "worker:1"],
            "blamed": ["ps:0"] * 3,
            "self": [False] * 3,
            "ts": [T0 + pd.Timedelta(seconds=s) for s in (31, 31.2, shift + 31.1)],
        }
    )
    clock = estimate_clock_offsets(facts, blames)
    assert set(clock.applied) == {"worker:1"}
    assert clock.applied["worker:1"] == pytest.approx(shift, abs=2)
    assert abs(clock.offsets["chief:0"]) < 2


def _ingest(nodes: dict[str, NodeInfo]) -> Ingest:
    return Ingest(empty_table(), [], nodes, [], [])


def test_healthy_run_verdict_is_none() -> None:
    nodes = {"worker:0": NodeInfo("worker:0", "worker", 0, files=["w0.log"], lines=3)}
    timeline = pd.DataFrame(
        {
            "ts": [T0, T0 + pd.Timedelta(seconds=1)],
            "node": ["worker:0"] * 2,
            "file": ["w0.log"] * 2,
            "line_no": [1, 2],
            "level": ["INFO"] * 2,
            "format": ["absl"] * 2,
            "message": ["step 1", "training finished after 1 steps"],
        }
    )
    empty = _findings(
        [
            {
                "ts": T0,
                "node": "worker:0",
                "message": "",
                "pattern_id": "x",
                "category": "none",
                "captures": {},
            }
        ]
    ).iloc[:0]
    d = diagnose(timeline, empty, _ingest(nodes), _rules())
    assert d.root_cause.node is None and d.root_cause.category == "none"
    assert "Nothing failed" in d.root_cause.summary
    assert d.nodes[0].status == "ok" and d.nodes[0].ending == "clean"


def test_missing_blamed_node_is_the_verdict_with_ambiguity() -> None:
    nodes = {
        n: NodeInfo(n, n.split(":")[0], int(n[-1]), files=[f"{n}.log"], lines=2, cluster=CLUSTER)
        for n in ("chief:0", "worker:0", "worker:1")
    }
    nodes["ps:0"] = NodeInfo("ps:0", "ps", 0, identity="cluster spec")
    rows = []
    for i, n in enumerate(("chief:0", "worker:0", "worker:1")):
        rows.append(
            {
                "ts": T0 + pd.Timedelta(seconds=i),
                "node": n,
                "file": f"{n}.log",
                "line_no": 1,
                "level": "INFO",
                "format": "absl",
                "message": "start",
            }
        )
        rows.append(
            {
                "ts": T0 + pd.Timedelta(seconds=30 + i),
                "node": n,
                "file": f"{n}.log",
                "line_no": 2,
                "level": "ERROR",
                "format": "absl",
                "message": "UnavailableError /job:ps/replica:0/task:0",
            }
        )
    timeline = pd.DataFrame(rows).sort_values("ts", kind="stable").reset_index(drop=True)
    errors = timeline[timeline["level"] == "ERROR"].copy()
    errors["pattern_id"] = "t.peer"
    errors["category"] = "connection_unavailable"
    errors["severity"] = "error"
    errors["benign"] = False
    errors["captures"] = [{"peer_task": "/job:ps/replica:0/task:0"}] * len(errors)
    d = diagnose(timeline, errors, _ingest(nodes), _rules())
    rc = d.root_cause
    assert rc.node == "ps:0" and rc.category == "node_crash"
    assert rc.ambiguity and "no log" in rc.ambiguity
    assert d.node("ps:0").status == "missing" or d.node("ps:0").status == "failed"
    assert {d.node(n).status for n in ("chief:0", "worker:0", "worker:1")} == {"victim"}
    assert d.node("worker:1").lag_s == pytest.approx(2.0)
    assert len({e.node for e in rc.evidence}) == 3


def test_zone_offset_of_mixed_stamps_is_found_and_aligned() -> None:
    """Epoch-stamped C++ lines and zone-less Python lines of one file disagree by 9 h."""
    from analyzer.diagnose import aligned_times, zone_offsets

    shift = pd.Timedelta(hours=-9)
    rows = []
    for i in range(6):
        local = i % 2 == 1
        rows.append(
            {
                "ts": T0 + pd.Timedelta(seconds=i) + (shift if local else pd.Timedelta(0)),
                "ts_origin": "parsed" if local else "epoch",
                "node": "worker:1",
                "file": "w1.log",
                "line_no": i + 1,
            }
        )
    rows.append({**rows[-1], "ts_origin": "inherited", "line_no": 7})
    rows.append({**rows[0], "node": "worker:0", "file": "w0.log"})
    timeline = pd.DataFrame(rows)
    fix = zone_offsets(timeline)
    assert fix.offsets == {"worker:1": -9 * 3600.0}
    aligned = aligned_times(timeline, fix)
    expected = [T0 + pd.Timedelta(seconds=i) for i in (0, 1, 2, 3, 4, 5, 5, 0)]
    assert list(aligned) == expected


def test_nested_remote_target_blames_the_origin_not_the_relay() -> None:
    from analyzer.diagnose import _remote_targets

    relayed = (
        "Additional GRPC error information from remote target /job:worker/replica:0/task:0 "
        'while calling Enqueue:\n:UNKNOWN:Error received from peer  {grpc_message:"(0) '
        "UNAVAILABLE: reset\\nAdditional GRPC error information from remote target "
        '/job:ps/replica:0/task:0/device:CPU:0 while calling Run:\\n:UNKNOWN: {grpc_status:14}"}'
    )
    assert _remote_targets(relayed) == [("remote_target", "/job:ps/replica:0/task:0")]
    aborted = (
        "Additional GRPC error information from remote target /job:worker/replica:0/task:1 ...\n"
        ':UNKNOWN:Error received from peer  {grpc_message:"recvmsg:Connection reset by peer", '
        "grpc_status:14}\nAdditional GRPC error information from remote target "
        '/job:worker/replica:0/task:2 ...\n:UNKNOWN:Error received from peer  {grpc_message:"'
        'Collective ops is aborted by: recvmsg:Connection reset by peer"}'
    )
    assert _remote_targets(aborted) == [("remote_target", "/job:worker/replica:0/task:1")]


def test_cancelled_calls_blame_nobody() -> None:
    findings = _findings(
        [
            {"ts": T0, "node": "chief:0", "pattern_id": "t.peer",
             "category": "connection_unavailable",
             "message": "Remote function on /job:worker/replica:0/task:1 failed with CancelledError",
             "captures": {"peer_task": "/job:worker/replica:0/task:1"}},
        ]
    )  # fmt: skip
    assert resolve_blames(findings, PeerDirectory(_facts()), _rules()).empty


@pytest.mark.parametrize(
    ("lines", "ending", "exit_info"),
    [
        ([("INFO", "absl", "step 5"), (None, "plain", "Killed")], "killed", "Killed"),
        ([("INFO", "absl", "step 5"), (None, "plain", "Segmentation fault (core dumped)")],
         "killed", "Segmentation fault (core dumped)"),
        ([("INFO", "absl", "step 5"), ("INFO", "absl", "process exited with code 137")],
         "killed", "exited with code 137"),
        ([("ERROR", "absl", "boom"), (None, "plain", "  more detail")], "exception", None),
        ([("INFO", "python_logging", "training finished after 9 steps"),
          ("INFO", "python_logging", "Stopping queue")], "clean", None),
        ([("INFO", "absl", "step 4"), ("INFO", "absl", "step 5")], "mid-run", None),
    ],
)  # fmt: skip
def test_how_a_log_ends(lines, ending, exit_info) -> None:
    from analyzer.diagnose import _ending_of

    tail = pd.DataFrame(
        [
            {"ts": T0, "file": "w.log", "line_no": i, "level": lvl, "format": fmt, "message": msg}
            for i, (lvl, fmt, msg) in enumerate(lines, 1)
        ]
    )
    got_ending, got_exit, _ = _ending_of(tail)
    assert (got_ending, got_exit) == (ending, exit_info)


def test_unrecognised_traceback_at_the_end_is_a_failure(write_log, tmp_path: Path) -> None:
    write_log(
        "run/mystery.log",
        'hello\nTraceback (most recent call last):\n  File "x.py", line 1\nValueError: boom\n',
    )
    rc = analyzer.load(tmp_path / "run").root_cause
    assert (rc.node, rc.category) == ("mystery", "node_crash")
    assert rc.evidence and "ValueError: boom" in rc.evidence[0].text
