"""The diagnosis and the reports at many nodes: the fast paths give what the plain ones give.

Each step that once compared every node with every other (a median of the differences to all
peers, a scan of all symptoms per node, a mask over all rows per node) now sorts once. These
tests keep the plain way of each, written the obvious way, and check that the fast one agrees
with it: on random data, and on a whole run of many one-node files (with the plain ways swapped
in, the report is the same). Speed itself is measured by ``benchmarks/``, never asserted here.
"""

from __future__ import annotations

import importlib.util
import random
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from analyzer.diagnose import clocks, phases, scoring, silence, straggler
from analyzer.diagnose.clocks import ClockEstimate, _corrected_times
from analyzer.diagnose.common import SILENCE_BURST_S, SILENCE_GRACE_S, _seconds, _utc, _values

ROOT = Path(__file__).resolve().parent.parent
T0 = pd.Timestamp("2026-11-22 03:00:00", tz="UTC")


# -- the plain ways ---------------------------------------------------------------------------


def plain_pairwise_offsets(nodes, anchors):
    """Every difference listed, then ``statistics.median`` (each ``(a - b) / 1e9`` seconds)."""
    out = {}
    for node in nodes:
        per_kind, every = {}, []
        for kind, times in anchors.items():
            if node not in times or len(times) < 2:
                continue
            diffs = [(times[node].value - t.value) / 1e9 for o, t in times.items() if o != node]
            per_kind[kind] = statistics.median(diffs)
            every.extend(diffs)
        out[node] = (statistics.median(every) if every else 0.0, per_kind)
    return out


def plain_reactions(symptoms, blames, clock):
    peer = blames[~blames["self"]] if not blames.empty else blames
    blamed_of_row = dict(zip(_values(peer["row"]), _values(peer["blamed"]), strict=True))
    return pd.DataFrame(
        {
            "node": symptoms["node"].astype(str).to_numpy(),
            "blamed": [blamed_of_row.get(r) for r in symptoms.index.tolist()],
            "ts": _corrected_times(symptoms["node"], _utc(symptoms["ts"]), clock).array,
        }
    )


def plain_reacted(reactions, node, stop):
    """A boolean mask over every symptom, per node asked."""
    if reactions.empty:
        return False
    window = (reactions["ts"] >= stop) & (
        reactions["ts"] <= stop + pd.Timedelta(seconds=SILENCE_BURST_S)
    )
    unexplained = reactions["blamed"].isna() | (reactions["blamed"] == node)
    return bool((window & unexplained & (reactions["node"] != node)).any())


def plain_detect_silence(
    facts, symptoms, blames, clock, serving=frozenset(), outside=frozenset(), stopped=frozenset()
):
    """Every node's peers' last lines listed and their maximum taken, per node."""
    last = {
        n: clock.correct(n, f.last_time)
        for n, f in facts.items()
        if f.last_time is not None and not pd.isna(f.last_time)
    }
    early = (
        blames[~blames["self"] & blames["early"] & (blames["category"] != "session_blocked")]
        if not blames.empty
        else blames
    )
    blamed = set(early["blamed"]) if not early.empty else set()
    reactions = plain_reactions(symptoms, blames, clock)
    silent = {}
    for node, f in facts.items():
        if node not in last or node in outside or node in stopped:
            continue
        if f.ending not in ("mid-run", "killed"):
            continue
        others = [t for n, t in last.items() if n != node and n not in outside]
        if not others:
            continue
        after = _seconds(max(others) - last[node])
        if after <= 0:
            continue
        implicated = node in blamed or (
            node not in serving and plain_reacted(reactions, node, last[node])
        )
        if implicated or (f.ending == "killed" and after >= SILENCE_GRACE_S):
            silent[node] = after
    return silent


def plain_own_time_outlier(rows, job_step_s):
    """Each node against ``drop(index=node)`` of the others."""
    times = rows.groupby("node")["step_time_s"].agg(["median", "count"])
    times = times[(times["count"] >= straggler.MIN_REPORTS) & times["median"].notna()]
    if len(times) < 2:
        return None
    judged = rows[rows["node"].isin(times.index)]
    lockstep = len(times) >= 2 and (
        len({len(g) for _, g in judged.groupby("node")}) == 1
        and len({g["step"].max() for _, g in judged.groupby("node")}) == 1
    )
    best = None
    for node, med in times["median"].items():
        peers = times["median"].drop(index=node)
        base = float(np.median(peers))
        if base <= 0 or med <= 0:
            continue
        high, low = med / base, base / med
        spread = float(peers.max() / peers.min()) if peers.min() > 0 else np.inf
        peers_wait = job_step_s is None or base >= straggler.WAIT_SHARE * job_step_s
        order = straggler._node_order
        if (
            high >= straggler.STRAGGLER_FACTOR
            and (best is None or high > best[1])
            and not (lockstep and best is not None and best[2] == "waited for")
        ):
            best = (str(node), high, "slow", sorted(map(str, peers.index), key=order))
        elif (
            low >= straggler.STRAGGLER_FACTOR
            and spread < 1.5
            and peers_wait
            and (best is None or low > best[1] or (lockstep and best[2] == "slow"))
        ):
            best = (str(node), low, "waited for", sorted(map(str, peers.index), key=order))
    return best


def plain_step_lag(rows):
    rows = rows[rows["timed"].to_numpy(dtype=bool)]
    if rows["node"].nunique() < 2:
        return None
    g = rows.groupby("node")
    span = (g["ts"].max() - g["ts"].min()).dt.total_seconds()
    reports = g.size()
    ok = (span > 0) & (reports >= straggler.MIN_REPORTS)
    if ok.sum() < 2:
        return None
    per_s = (reports[ok] / span[ok]).astype(float)
    best = None
    for n, r in per_s.items():
        others = per_s.drop(index=n)
        base = float(np.median(others))
        if (
            r > 0
            and base / r >= straggler.STRAGGLER_FACTOR
            and (best is None or base / r > best[1])
        ):
            order = straggler._node_order
            best = (str(n), base / r, "lags", sorted(map(str, others.index), key=order))
    return best


def plain_progress_json(progress):
    """One group of rows and one row Series per node."""
    from analyzer.model import iso
    from analyzer.progress import JSON_POINTS, _num, summary

    nodes = []
    for node, r in summary(progress).iterrows():
        nodes.append(
            {
                "node": node,
                "reports": int(r["reports"]),
                "first": iso(r["first"]),
                "last": iso(r["last"]),
                "last_step": _num(r["last_step"]),
                "last_step_time": iso(r["last_step_time"]),
                "rate": _num(r["rate"]),
                "step_time_s": _num(r["step_time_s"]),
                "report_interval_s": _num(r["report_interval_s"]),
                "sources": ",".join(
                    sorted(set(progress.loc[progress["node"] == node, "source"]))
                ).split(","),
            }
        )
    series = []
    for node, rows in progress.groupby("node", sort=True) if not progress.empty else []:
        keep = np.unique(np.r_[np.linspace(0, len(rows) - 1, JSON_POINTS).round(), len(rows) - 1])
        rows = rows.iloc[keep.astype(int)]
        points = [
            {"time": iso(t), "step": _num(s), "rate": _num(r), "step_time_s": _num(st)}
            for t, s, r, st in zip(
                rows["ts"], rows["step"], rows["rate"], rows["step_time_s"], strict=True
            )
        ]
        series.append({"node": node, "points": points})
    return {"nodes": nodes, "series": series}


def plain_finding_groups(run):
    from analyzer.model import CATEGORIES
    from analyzer.report.common import FindingGroup, bad_findings, node_sort_key

    frame = bad_findings(run, notable=True).reset_index(drop=True)
    out = []
    for (category, node), rows in frame.groupby(["category", "node"], sort=False):
        ex = rows.iloc[0]
        out.append(
            FindingGroup(
                category=str(category),
                node=str(node),
                count=int(rows["repeats"].sum()),
                first=rows["ts"].min(),
                last=rows["ts"].max(),
                pattern_id=str(ex["pattern_id"]),
                severity=str(ex["severity"]),
                message=str(ex["message"]),
            )
        )
    rank = {c: i for i, c in enumerate(CATEGORIES)}
    out.sort(key=lambda g: (rank.get(g.category, 99), g.category, node_sort_key(g.node)))
    return out


# -- each fast path against its plain way, on random data -------------------------------------


def _anchors(rng: random.Random, n: int) -> dict[str, dict[str, pd.Timestamp]]:
    nodes = [f"worker:{i}" for i in range(n)]
    spread = rng.choice([1, 10**6, 10**9, 10**12])
    anchors: dict[str, dict[str, pd.Timestamp]] = {"start-up": {}, "error burst": {}}
    for node in nodes:
        for kind, share in (("start-up", 0.9), ("error burst", 0.6)):
            if rng.random() < share:
                ns = rng.choice([0, 0, 1, 3, rng.randint(-spread, spread)])  # ties too
                anchors[kind][node] = T0 + pd.Timedelta(nanoseconds=ns)
    return anchors


def test_clock_offsets_are_the_medians_of_every_listed_difference():
    rng = random.Random(11)
    for _ in range(1500):
        anchors = _anchors(rng, rng.randint(1, 14))
        if rng.random() < 0.2:
            anchors = {"error burst": anchors["error burst"]}
        asked = sorted(set().union(*anchors.values()))
        assert clocks._pairwise_offsets(asked, anchors) == plain_pairwise_offsets(asked, anchors)


def test_clock_offsets_of_many_nodes():
    rng = random.Random(5)
    anchors = _anchors(rng, 700)
    asked = sorted(anchors["start-up"])
    assert clocks._pairwise_offsets(asked, anchors) == plain_pairwise_offsets(asked, anchors)


def test_a_skewed_node_is_still_found_among_many():
    from analyzer.diagnose.facts import Facts

    rng = random.Random(2)
    facts, rows = {}, []
    for i in range(300):
        node = f"worker:{i}"
        skew = pd.Timedelta(hours=2) if i == 17 else pd.Timedelta(0)
        start = T0 + pd.Timedelta(seconds=rng.random() * 5) + skew
        facts[node] = Facts(node, first_time=start, last_time=start + pd.Timedelta(minutes=10))
        burst = T0 + pd.Timedelta(minutes=5, seconds=rng.random()) + skew
        rows.append({"victim": node, "blamed": "ps:0", "self": False, "ts": burst})
    est = clocks.estimate_clock_offsets(facts, pd.DataFrame(rows))
    assert list(est.applied) == ["worker:17"]
    assert est.applied["worker:17"] == pytest.approx(7200, abs=2)


def _symptoms(rng: random.Random, n_nodes: int, n_rows: int):
    nodes = [f"worker:{i}" for i in range(n_nodes)]
    times = [T0 + pd.Timedelta(seconds=rng.random() * 600) for _ in range(n_rows)]
    frame = pd.DataFrame(
        {"node": [rng.choice(nodes) for _ in range(n_rows)], "ts": times},
        index=pd.Index(rng.sample(range(10 * n_rows + 10), n_rows), name="row"),
    )
    if n_rows and rng.random() < 0.3:
        frame.loc[frame.index[0], "ts"] = pd.NaT
    blames = pd.DataFrame(
        {
            "row": [r for r in frame.index if rng.random() < 0.5],
        }
    )
    blames["blamed"] = [rng.choice([*nodes, "ps:0"]) for _ in range(len(blames))]
    blames["self"] = [rng.random() < 0.2 for _ in range(len(blames))]
    clock = ClockEstimate(applied={nodes[0]: rng.choice([0.0, 30.5, -700.0])})
    return nodes, frame, blames, clock


def test_reactions_answer_as_a_scan_of_every_symptom():
    rng = random.Random(7)
    for _ in range(300):
        nodes, symptoms, blames, clock = _symptoms(rng, rng.randint(1, 6), rng.randint(0, 25))
        fast = silence._reactions(symptoms, blames, clock)
        plain = plain_reactions(symptoms, blames, clock)
        for node in [*nodes, "ps:0"]:
            for _ in range(4):
                stop = T0 + pd.Timedelta(seconds=rng.choice([-200, 0, 100, 300, 480, 650]))
                stop += pd.Timedelta(seconds=rng.random() * 60)
                assert fast.reacted(node, stop) == plain_reacted(plain, node, stop)
            if len(symptoms):  # a stop exactly at a symptom, and the window's very end
                t = _utc(symptoms["ts"]).dropna()
                for stop in [*t.head(2), *(t.head(2) - pd.Timedelta(seconds=SILENCE_BURST_S))]:
                    assert fast.reacted(node, stop) == plain_reacted(plain, node, stop)


def test_silence_of_many_nodes_as_the_plain_way():
    from analyzer.diagnose.facts import Facts

    rng = random.Random(3)
    for _ in range(40):
        nodes, symptoms, blames, clock = _symptoms(rng, rng.randint(1, 60), rng.randint(0, 120))
        facts = {}
        for node in [*nodes, "ps:0", "chief:0"]:
            last = T0 + pd.Timedelta(seconds=rng.choice([100, 300, 300, 600]) + rng.random())
            ending = rng.choice(["mid-run", "killed", "clean", "exception"])
            facts[node] = Facts(node, first_time=T0, last_time=last, ending=ending)
        blames = blames.assign(
            victim=[rng.choice(nodes) for _ in range(len(blames))],
            early=[rng.random() < 0.5 for _ in range(len(blames))],
            category=[
                rng.choice(["session_blocked", "connection_unavailable"]) for _ in blames.index
            ],
        )
        outside = {rng.choice(list(facts))} if rng.random() < 0.3 else set()
        serving = {rng.choice(list(facts))}
        args = (facts, symptoms, blames, clock, serving, outside, set())
        assert silence.detect_silence(*args) == plain_detect_silence(*args)


def _progress_rows(rng: random.Random, n: int) -> pd.DataFrame:
    rows = []
    for i in range(n):
        node = rng.choice(["worker", "ps", "chief"]) + f":{i}"
        pace = rng.choice([0.1, 0.2, 0.5, 1.0, 3.0])
        for j in range(rng.randint(1, 8)):
            rows.append(
                {
                    "node": node,
                    "step_time_s": rng.choice([pace, pace, rng.random() * 2, 0.0, np.nan]),
                    "ts": T0 + pd.Timedelta(seconds=rng.random() * 100 * (1 + i % 3)),
                    "timed": rng.random() < 0.9,
                    "step": float(j),
                }
            )
    return pd.DataFrame(rows)


def test_straggler_medians_of_the_others_as_dropping_each_node():
    rng = random.Random(13)
    found = 0
    for _ in range(600):
        rows = _progress_rows(rng, rng.randint(2, 9))
        job = rng.choice([None, 0.1, 1.0])
        got = straggler._own_time_outlier(rows, job)
        assert got == plain_own_time_outlier(rows, job)
        assert straggler._step_lag(rows) == plain_step_lag(rows)
        found += got is not None
    assert found > 20  # (the random runs do name stragglers: the comparison means something)
    many = _progress_rows(random.Random(1), 400)
    assert straggler._own_time_outlier(many, None) == plain_own_time_outlier(many, None)
    assert straggler._step_lag(many) == plain_step_lag(many)


def test_phase_lines_of_each_node_as_read_from_its_own_log():
    """The per-node phase positions of the whole timeline are those of each node's own rows."""
    rng = random.Random(4)
    messages = [
        "Started server with target: grpc://x:1",
        "Session created",
        "step 3 loss 0.5",
        "Saving checkpoints for 3 into /tmp/m",
        "Training finished",
        "nothing here",
    ]
    nodes = [f"worker:{i}" for i in range(40)]
    timeline = pd.DataFrame(
        {
            "node": [rng.choice(nodes) for _ in range(800)],
            "message": [rng.choice(messages) for _ in range(800)],
            "ts": [T0 + pd.Timedelta(seconds=i) for i in range(800)],
        }
    )
    whole = phases.node_phases(timeline)
    for node in nodes:
        where = np.flatnonzero(timeline["node"].to_numpy() == node)
        own = phases.node_phases(timeline.iloc[where].reset_index(drop=True))
        got = whole.order.get(node)
        if node not in own.order:
            assert got is None
            continue
        assert np.array_equal(got[0], where[own.order[node][0]])
        assert np.array_equal(got[1], own.order[node][1])
    assert list(whole.order) == sorted(whole.order)


def test_late_start_against_the_others_median():
    from analyzer.diagnose.facts import Facts

    rng = random.Random(8)
    for _ in range(200):
        facts = {
            f"worker:{i}": Facts(
                f"worker:{i}", first_time=T0 + pd.Timedelta(seconds=rng.choice([0, 0, 5, 20, 90]))
            )
            for i in range(rng.randint(1, 9))
        }
        ev = type("Ev", (), {})()
        ev.facts, ev.outside, ev._memo, ev.clock = facts, set(), {}, ClockEstimate()
        for node in facts:
            starts = {n: f.first_time for n, f in facts.items()}
            others = sorted(t for n, t in starts.items() if n != node)
            want = None
            if len(starts) >= 2:
                late = _seconds(starts[node] - others[len(others) // 2])
                want = late if late >= scoring.START_WAIT_S else None
            assert scoring._late_by(node, ev) == want


# -- whole runs of many nodes ------------------------------------------------------------------


def _generate(out: Path, files: int, seed: int) -> Path:
    spec = importlib.util.spec_from_file_location(
        "bench_generate_scale", ROOT / "benchmarks" / "generate.py"
    )
    gen = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = gen
    spec.loader.exec_module(gen)
    gen.generate(out, 0, 0, seed=seed, profile="tiny-files", files=files)
    return out


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    """A run of 160 one-node files (the tiny-files benchmark profile, small)."""
    from analyzer.run import load

    folder = _generate(tmp_path_factory.mktemp("many") / "tiny", 160, seed=3)
    return folder, load(folder, condensed=True, workers=1)


def _plain_ways(monkeypatch: Any) -> None:
    monkeypatch.setattr(clocks, "_pairwise_offsets", plain_pairwise_offsets)
    monkeypatch.setattr(silence, "_reactions", plain_reactions)
    monkeypatch.setattr(scoring, "_reactions", plain_reactions)
    monkeypatch.setattr(scoring, "_reacted", plain_reacted)
    monkeypatch.setattr(straggler, "_own_time_outlier", plain_own_time_outlier)
    monkeypatch.setattr(straggler, "_step_lag", plain_step_lag)
    import analyzer.diagnose as diagnose
    import analyzer.progress as progress

    monkeypatch.setattr(diagnose, "detect_silence", plain_detect_silence)
    monkeypatch.setattr(progress, "to_json", plain_progress_json)


def test_many_nodes_report_as_the_plain_ways_give_it(many, monkeypatch):
    from analyzer.run import load

    folder, run = many
    fast = run.to_dict()
    assert len(fast["nodes"]) >= 160 and fast["root_cause"]["category"] != "none"
    _plain_ways(monkeypatch)
    plain = load(folder, condensed=True, workers=1).to_dict()
    assert fast == plain


def test_finding_groups_of_many_nodes(many):
    from analyzer.report.common import finding_groups

    _, run = many
    got = finding_groups(run)
    assert len(got) > 100
    assert got == plain_finding_groups(run)


def test_progress_json_of_many_nodes(many):
    from analyzer.progress import to_json

    _, run = many
    assert len(run.progress["node"].unique()) > 100
    assert to_json(run.progress) == plain_progress_json(run.progress)


def test_progress_json_thins_long_series_as_before():
    rng = random.Random(9)
    rows = []
    for node, n in (("worker:0", 1), ("worker:1", 199), ("worker:2", 200), ("worker:3", 1234)):
        for j in range(n):
            rows.append(
                {
                    "node": node,
                    "ts": T0 + pd.Timedelta(microseconds=rng.randint(0, 10**10)),
                    "step": float(j),
                    "rate": rng.choice([np.nan, 1.5, np.inf]),
                    "step_time_s": rng.random(),
                    "source": rng.choice(["script_step", "tf1_tensors"]),
                    "timed": True,
                    "epoch": np.nan,
                    "total": np.nan,
                }
            )
    progress = pd.DataFrame(rows)
    from analyzer.progress import to_json

    got = to_json(progress)
    assert [len(s["points"]) for s in got["series"]] == [1, 199, 200, 200]
    assert got == plain_progress_json(progress)


def test_html_of_many_nodes_draws_every_reporting_node(many):
    """More nodes than the legend names: the grey peers are one line per panel, and the
    report still renders with the root cause drawn on its own."""
    from matplotlib.lines import Line2D

    from analyzer.report.plots import plot_progress

    _, run = many
    fig = plot_progress(run.progress, highlight=run.root_cause.node)
    lines = [a for ax in fig.axes for a in ax.get_children() if isinstance(a, Line2D)]
    grey = [ln for ln in lines if ln.get_color() == "#9aa4b1"]
    assert 1 <= len(grey) <= 3
    # every timed step report of every peer is a point of the grey step line (gaps between)
    progress = run.progress
    peers = progress[(progress["node"] != run.root_cause.node) & progress["timed"]]
    steps = grey[0].get_ydata()
    assert np.isnan(steps).sum() == peers.loc[peers["step"].notna(), "node"].nunique()
    assert sorted(steps[~np.isnan(steps)]) == sorted(peers["step"].dropna())
    html = run.to_html()
    assert html.count('<img src="data:image/svg+xml;base64,') >= 2  # timeline and progress


def test_hang_peer_latest_from_the_two_largest():
    from analyzer.diagnose.hang import _two_largest

    rng = random.Random(6)
    for _ in range(500):
        values = {
            f"worker:{i}": rng.choice([1.0, 2.0, 5.0, rng.random()])
            for i in range(rng.randint(1, 8))
        }
        top = _two_largest(values)
        for node in values:
            others = [v for n, v in values.items() if n != node]
            assert [v for n, v in top if n != node][-1:] == ([max(others)] if others else [])


def test_comparison_of_many_nodes_as_a_mask_per_node(many, tmp_path, monkeypatch):
    from analyzer import compare as compare_module
    from analyzer.run import load

    _, run = many
    other = load(_generate(tmp_path / "other", 160, seed=4), condensed=True, workers=1)
    fast = compare_module.compare(other, run).to_dict()
    assert len(fast["nodes"]) >= 160
    monkeypatch.setattr(
        compare_module,
        "_of",
        lambda frame, groups, node: frame[frame["node"] == node] if not frame.empty else frame,
    )
    assert compare_module.compare(other, run).to_dict() == fast
