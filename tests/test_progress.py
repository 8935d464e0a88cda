"""Progress per node (analyzer/progress.py): read from real logs, full and condensed."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT, SAMPLE_LOGS

from analyzer.formats import Keep, parse_lines
from analyzer.progress import COLUMNS, KEEP_PATTERN, progress_of, summary, summary_lines, to_json
from analyzer.run import load

DATA = ROOT / "tests" / "data" / "progress"


def test_healthy_chief_reports_every_step_it_logged():
    run = load(SAMPLE_LOGS / "healthy")
    prog = run.progress
    assert list(prog.columns) == COLUMNS
    chief = prog[prog["node"] == "chief:0"]
    # the chief logs "step N loss X" every 2 steps up to "training finished after 60 steps"
    assert chief["step"].tolist() == list(range(2, 61, 2))
    assert set(chief["source"]) == {"step_line"}
    assert chief["timed"].all()
    assert (chief["rate"].dropna() > 0).all()
    assert set(prog["node"]) == {"chief:0"}  # ps and workers print no step


def test_mwms_workers_report_in_lockstep():
    prog = load(SAMPLE_LOGS / "stalled_worker_deadline").progress
    summ = summary(prog)
    assert set(summ.index) == {"worker:0", "worker:1", "worker:2"}
    assert (summ["last_step"] == 10).all()
    # same pace on every worker: the all-reduce keeps them together
    assert summ["rate"].max() / summ["rate"].min() < 1.2


def test_keras3_progress_bar_real_output():
    """ANSI colours, carriage returns and backspaces of a real Keras 3 bar, verbose 1 and 2."""
    prog = load(DATA / "keras3_fit.log").progress
    assert set(prog["source"]) == {"keras_progbar"}
    assert not prog["timed"].any()  # the bar carries no time of its own
    # epoch 2/2 of 20 batches: global step 40; the verbose=2 run restarts at epoch 1
    assert prog["step"].max() == 40
    assert prog["epoch"].dropna().isin([1.0, 2.0]).all()
    assert (prog["total"] == 20).all()
    # "88ms/step", "1ms/step", "2ms/step" -> seconds
    assert prog["step_time_s"].notna().all()
    assert prog["step_time_s"].min() >= 0.0005
    assert prog["step_time_s"].max() <= 0.1


def test_tf1_hooks_real_output():
    prog = load(DATA / "tf1_hooks.log").progress
    by = {s: rows for s, rows in prog.groupby("source")}
    assert set(by) == {"tf1_step_rate", "tf1_tensors", "checkpoint"}
    assert by["tf1_step_rate"]["rate"].gt(100).all()  # "global_step/sec: 692.941" ...
    np.testing.assert_allclose(by["tf1_step_rate"]["step_time_s"], 1 / by["tf1_step_rate"]["rate"])
    assert by["tf1_tensors"]["step"].tolist() == [0, 50, 100, 150, 200, 250]
    # "(0.072 sec)" is the time of the 50 steps since the previous report
    assert by["tf1_tensors"]["step_time_s"].dropna().lt(0.01).all()
    assert by["checkpoint"]["step"].tolist() == [0, 100, 200, 300]


def test_summary_json_and_lines_agree():
    run = load(SAMPLE_LOGS / "healthy")
    summ = summary(run.progress)
    data = to_json(run.progress)
    json.dumps(data)  # plain data
    (node,) = data["nodes"]
    assert node["node"] == "chief:0"
    assert node["last_step"] == summ.loc["chief:0", "last_step"] == 60
    assert node["reports"] == 30
    assert data["series"][0]["points"][-1]["step"] == 60
    (line,) = summary_lines(run.progress)
    assert line.startswith("chief:0: 30 report(s), last step 60")


def test_no_progress_and_empty_input():
    assert progress_of(pd.DataFrame()).empty
    prog = load(SAMPLE_LOGS / "port_in_use").progress
    assert list(prog.columns) == COLUMNS
    assert summary(prog).empty and summary_lines(prog) == []
    assert to_json(prog) == {"nodes": [], "series": []}


def test_lines_that_only_mention_steps_are_not_progress():
    # real lines from the lab logs and TF1's StepCounterHook warning
    texts = [
        "training finished after 60 steps",
        "step 1: building embedding table of 4096 MB",
        "WARNING:tensorflow:It seems that global step (tf.train.get_global_step) has not been "
        "increased. Current value (could be stable): 34 vs previous value: 34.",
    ]
    tl = pd.DataFrame(
        {
            "message": texts,
            "node": "worker:0",
            "ts": pd.Timestamp("2026-11-22", tz="UTC"),
            "ts_origin": "parsed",
            "file": "x.log",
            "line_no": range(1, len(texts) + 1),
        }
    )
    assert progress_of(tl).empty


def _big_log(tmp_path, steps: int, tail_noise: int):
    """A long log made of a real lab run's lines, re-numbered and re-timed: a step line per
    step, then ``tail_noise`` real warning lines after the last step (as a hung job logs)."""
    real = (SAMPLE_LOGS / "stalled_worker_deadline" / "worker-1.log").read_text().splitlines()
    step_line = next(line for line in real if " - INFO - step 1/" in line)
    warn = next(line for line in real if line.startswith("W0000"))
    t0 = pd.Timestamp("2026-11-22 05:10:53")
    out = real[: real.index(step_line)]
    for i in range(1, steps + 1):
        ts = (t0 + pd.Timedelta(seconds=0.1 * i)).strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]
        out.append(ts + step_line[23:].replace("step 1/200", f"step {i}/{steps}"))
    out += [warn] * tail_noise
    path = tmp_path / "worker-1.log"
    path.write_text("\n".join(out) + "\n")
    return path


@pytest.mark.parametrize("tail_noise", [0, 5000])
def test_condensed_keeps_first_last_and_a_bounded_sample(tmp_path, tail_noise):
    path = _big_log(tmp_path, steps=20000, tail_noise=tail_noise)
    full = load(path).progress
    cond = load(path, condensed=True).progress
    assert len(full) == 20000
    assert 100 <= len(cond) <= 4000
    assert cond["step"].min() == 1 and cond["step"].max() == 20000
    fs, cs = summary(full), summary(cond)
    assert cs["last_step_time"].iloc[0] == fs["last_step_time"].iloc[0]
    # the sample keeps runs of consecutive reports: the interval between reports survives
    assert cs["report_interval_s"].iloc[0] == pytest.approx(
        fs["report_interval_s"].iloc[0], rel=0.05
    )
    assert cs["rate"].iloc[0] == pytest.approx(fs["rate"].iloc[0], rel=0.05)


def test_keep_progress_is_off_without_a_pattern(tmp_path):
    data = _big_log(tmp_path, steps=900, tail_noise=0).read_bytes()
    kw = {"head": 5, "tail": 5, "sample": 0}
    plain = parse_lines(data, Keep("nothing-matches-this", **kw))
    with_progress = parse_lines(data, Keep("nothing-matches-this", progress=KEEP_PATTERN, **kw))
    messages = with_progress.table["message"].to_pylist()
    assert plain.table.num_rows < 40
    assert sum("step 1/900 " in m for m in messages) == 1
    assert sum("step 900/900 " in m for m in messages) == 1
    assert with_progress.table.num_rows > 100


def test_the_step_that_says_its_count_wins():
    """tf1_sync lines say two steps: 'local step 21 global step 20/60': the one with a count."""
    lab = ROOT / "tests" / "corpus" / "lab" / "tf1_sync" / "healthy-none-full-host"
    prog = load(lab).progress
    workers = prog[prog["node"].isin(["worker:0", "worker:1"])]
    assert (workers["total"] == 60).all()
    assert workers["step"].max() == 59  # the global step, not the local one (60)


def test_benchmark_rows_and_step_durations_are_progress(tmp_path):
    """tf_cnn_benchmarks' step table rows and a script's "step N, duration = S" lines (real
    lines of two committed logs in the excerpt corpus: LambdaColdStorage/lambda-tensorflow-
    benchmark and wit543/isc)."""
    corpus = ROOT / "tests" / "corpus" / "excerpts"
    bench = next(corpus.glob("lambda-tf-benchmark-log-2080-maxq-inception3-*.txt")).read_text()
    steps = next(corpus.glob("isc-agoniii-log-docker-worker-createsession-*.txt")).read_text()
    rows = [line for line in bench.splitlines() if "images/sec:" in line and "total" not in line]
    timed = [line for line in steps.splitlines() if ": step " in line]
    path = tmp_path / "run.log"
    path.write_text("\n".join(rows + timed) + "\n", encoding="utf-8")
    prog = load(path).progress
    by = {s: rows for s, rows in prog.groupby("source")}
    assert by["benchmark_row"]["step"].tolist() == [1, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]
    assert by["step_line"]["step"].tolist()[:3] == [0, 10, 20]
    assert len(by["step_line"]) == len(timed)
    # the summary line is no step
    assert not progress_of(pd.DataFrame({"message": ["total images/sec: 213.14"]})).shape[0]
