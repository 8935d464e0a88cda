"""Benchmark classify() on synthetic timelines: mostly ordinary lines, a few error lines.

    python benchmarks/bench_classify.py [--rows 2000000] [--error-rate 0.001] [--repeat 3]

The error lines are the match examples of the bundled rules; the ordinary lines imitate a
training job's chatter (step/loss lines, Keras progress, TensorFlow INFO lines). Columns are
Arrow-backed like the real timeline. Timing: time.perf_counter around classify() only.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
import pandas as pd
import pyarrow as pa

from analyzer.classify import classify
from analyzer.rules import example_event, load_rules

NOISE = [
    ("INFO:tensorflow:step {i} loss {f:.4f} ({g:.3f} sec)", "INFO", "python_tf_logging"),
    (
        "{i}/1000 [==============================] - 2s 3ms/step - loss: {f:.4f}",
        None,
        "keras_progress",
    ),
    ("Epoch {i}/100", None, "plain"),
    (
        "I0000 00:00:17953{i}.1 6809 master_session.cc:1004] Start master session {i:x} with "
        "config: allow_soft_placement: true",
        "INFO",
        "absl",
    ),
    (
        "INFO:tensorflow:Saving checkpoints for {i} into /ckpt/model.ckpt.",
        "INFO",
        "python_tf_logging",
    ),
    ("INFO:tensorflow:global_step/sec: {f:.3f}", "INFO", "python_tf_logging"),
    (
        "W0000 00:00:17953{i}.1 6809 data_service.cc:1] Dataset element {i} took {g:.3f} s",
        "WARNING",
        "absl",
    ),
    ("[worker {i}] batch {i} processed {f:.2f} examples/s", None, "plain"),
]


def build(rows: int, error_rate: float, seed: int = 0) -> pd.DataFrame:
    rnd = random.Random(seed)
    rules = load_rules()
    errors = [
        example_event(ex)
        for r in rules
        if not r.benign
        for ex in r.examples
        if ex.expect == "match"
    ]
    n_err = int(rows * error_rate)
    templates = [
        (t.format(i=i, f=rnd.random(), g=rnd.random()), lvl, fmt)
        for i in range(5000)
        for t, lvl, fmt in [NOISE[i % len(NOISE)]]
    ]
    idx = np.random.default_rng(seed).integers(0, len(templates), rows)
    message = [templates[k][0] for k in idx]
    level = [templates[k][1] for k in idx]
    fmt = [templates[k][2] for k in idx]
    detail: list[str | None] = [None] * rows
    for pos in np.random.default_rng(seed + 1).choice(rows, n_err, replace=False):
        ev = errors[rnd.randrange(len(errors))]
        message[pos], level[pos], fmt[pos], detail[pos] = (
            ev["message"],
            ev["level"],
            ev["format"],
            ev["detail"],
        )

    def col(values):
        return pd.arrays.ArrowExtensionArray(pa.array(values, pa.large_string()))

    return pd.DataFrame(
        {
            "message": col(message),
            "detail": col(detail),
            "level": col(level),
            "source": col([None] * rows),
            "format": col(fmt),
            "node": col(["worker:0"] * rows),
        }
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--error-rate", type=float, default=0.001)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rules = load_rules()
    t0 = time.perf_counter()
    df = build(args.rows, args.error_rate)
    print(f"built {len(df):,} rows in {time.perf_counter() - t0:.1f} s; {len(rules)} rules")
    best = float("inf")
    for i in range(args.repeat):
        t = time.perf_counter()
        res = classify(df, rules)
        dt = time.perf_counter() - t
        best = min(best, dt)
        print(
            f"run {i + 1}: {dt:.2f} s = {len(df) / dt:,.0f} rows/s; "
            f"{res.candidates:,} candidate rows, {len(res.findings):,} findings"
        )
    print(f"best: {best:.2f} s = {len(df) / best:,.0f} rows/s")


if __name__ == "__main__":
    main()
