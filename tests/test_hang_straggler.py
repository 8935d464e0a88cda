"""Hang and straggler on the real lab runs (tests/corpus/lab/<style>/<run>/ with truth.json).

The runs are chosen at collection time: every committed run of the styles the diagnosis was
tuned on whose fault family is ``hang`` or ``straggler`` must get its truth (node and category),
through the condensed ``tfdiag analyze`` path and the full notebook path; every healthy run of
those styles must stay ``none``. The held-out style (tests/corpus/lab/protocol.json) is not
looked at here: its accuracy is measured once, with ``tfdiag evaluate``, and reported apart.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ROOT, SAMPLE_LOGS, changed_run, without

from analyzer.run import load

LAB = ROOT / "tests" / "corpus" / "lab"


def _holdout() -> set[str]:
    try:
        return set(json.loads((LAB / "protocol.json").read_text())["holdout_styles"])
    except (OSError, ValueError, KeyError):
        return set()


def _runs(families: set[str]) -> list[tuple[Path, dict]]:
    out = []
    holdout = _holdout()
    for truth_file in sorted(LAB.glob("*/*/truth.json")):
        truth = json.loads(truth_file.read_text())
        if truth.get("style") in holdout or truth.get("family") not in families:
            continue
        out.append((truth_file.parent, truth))
    return out


STALLS = _runs({"stall/hang", "straggler"})
HEALTHY = _runs({"healthy"})


def _id(item: tuple[Path, dict]) -> str:
    return f"{item[0].parent.name}/{item[0].name}"


@pytest.fixture(scope="module")
def verdicts():
    """(folder, truth, condensed verdict, full verdict) of every stall run, loaded once."""
    out = []
    for folder, truth in STALLS:
        out.append(
            (
                folder,
                truth,
                load(folder, condensed=True).root_cause,
                load(folder).root_cause,
            )
        )
    return out


def test_hang_and_straggler_are_right_on_two_styles_each(verdicts):
    """The done criterion: for each of hang and straggler, runs of at least two cluster styles
    get node and category right (on both the analyze and the notebook path)."""
    for category in ("hang", "straggler"):
        right = {
            truth["style"]
            for _, truth, cond, full in verdicts
            if truth["root_cause_category"] == category
            and (cond.node, cond.category) == (full.node, full.category)
            and (cond.node, cond.category) == (truth["first_failing_node"], category)
        }
        wrong = [
            f"{f.parent.name}/{f.name}: {c.node}/{c.category}"
            for f, truth, c, _ in verdicts
            if truth["root_cause_category"] == category
            and (c.node, c.category) != (truth["first_failing_node"], category)
        ]
        assert len(right) >= 2, f"{category}: right on {sorted(right)} only; wrong: {wrong}"


@pytest.mark.parametrize("item", STALLS, ids=_id)
def test_stall_runs_get_their_category(item, verdicts):
    """Every stall or straggler run gets its category on both paths — from its logs alone, or,
    where they cannot show it (a synchronous job slow from its first step looks the same as a
    fast one), with a good run of the same style as baseline — and a node only when the node
    is right or the verdict says it is unsure; its evidence quotes log lines."""
    folder, truth = item
    expected = truth["root_cause_category"]
    for f, _, cond, full in verdicts:
        if f != folder:
            continue
        for rc in (cond, full):
            if rc.category != expected:
                good = next(g for g, t in HEALTHY if t["style"] == truth["style"])
                rc = load(folder, baseline=good, condensed=True).root_cause
            assert rc.category == expected, rc.summary
            assert rc.evidence, "a verdict without a single log line"
            if rc.node is not None and rc.node != truth["first_failing_node"]:
                assert rc.ambiguity, f"a wrong node ({rc.node}) named without a doubt"


@pytest.mark.parametrize("item", HEALTHY, ids=_id)
def test_healthy_runs_stay_none(item):
    folder, _ = item
    for condensed in (True, False):
        assert load(folder, condensed=condensed).root_cause.category == "none"


def test_sample_healthy_stays_none_and_samples_keep_their_verdicts():
    assert load(SAMPLE_LOGS / "healthy", condensed=True).root_cause.category == "none"
    # a hung peer that its peers' collectives then time out on stays deadline_exceeded
    rc = load(SAMPLE_LOGS / "stalled_worker_deadline", condensed=True).root_cause
    assert (rc.node, rc.category) == ("worker:1", "deadline_exceeded")


def _pairs() -> list[tuple[Path, Path]]:
    """(healthy run, stall run) of the same style and the same file layout."""
    healthy = {(t["style"], f.name.rsplit("-", 1)[-1]): f for f, t in HEALTHY}
    out = []
    for folder, truth in STALLS:
        key = (truth["style"], folder.name.rsplit("-", 1)[-1])
        if key in healthy:
            out.append((healthy[key], folder))
    return out


@pytest.mark.parametrize("pair", _pairs(), ids=lambda p: f"{p[1].parent.name}/{p[1].name}")
def test_baseline_keeps_the_verdict_and_shows_the_difference(pair):
    good, failed = pair
    truth = json.loads((failed / "truth.json").read_text())
    run = load(failed, baseline=good, condensed=True)
    rc = run.root_cause
    alone = load(failed, condensed=True).root_cause
    # the comparison may add a node the logs alone could not tell; it never loses a right one
    assert rc.category == truth["root_cause_category"]
    assert rc.node in {alone.node, truth["first_failing_node"]}
    if alone.node == truth["first_failing_node"]:
        assert rc.node == alone.node
    c = run.comparison
    assert c is not None and c.node_count[0] == c.node_count[1]
    assert c.differences, "a hung or slow run that differs in nothing from a good one"
    data = run.to_dict()
    assert data["baseline"]["failed"] == str(failed)


def test_a_wrong_zone_on_one_node_keeps_the_hang_verdict():
    """The chief's zone-less lines read an hour off (--tz): the zone fix moves its progress
    too, so the stall and its culprit stay where they were."""
    runs = [(f, t) for f, t in STALLS if t["root_cause_category"] == "hang"]
    for folder, truth in runs:
        plain = load(folder, condensed=True).root_cause
        if plain.node != truth["first_failing_node"]:
            continue
        reporting = sorted(load(folder, condensed=True).progress["node"].unique())
        shifted = load(folder, condensed=True, node_tz={reporting[0]: "Europe/Berlin"})
        rc = shifted.root_cause
        assert (rc.node, rc.category) == (plain.node, plain.category), folder
        assert abs((rc.time - plain.time).total_seconds()) < 1


ASYNC_BLOCK = LAB / "tf1_supervisor" / "block-worker-training-pod"


def test_a_worker_left_behind_by_a_finished_peer_hung():
    """Asynchronous TF1: worker:0 trains to the last step and says it finished; worker:1 stops
    at global step 18 with no error; the launcher ends the job for making no progress and
    names worker:1 among the tasks still running. A finished peer does not make it healthy."""
    run = load(ASYNC_BLOCK, condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("worker:1", "hang")


def test_without_the_launchers_no_progress_line_a_finished_peer_means_done(tmp_path):
    def no_progress_word(text: str) -> str:
        return text.replace("no training progress for 20 s", "done")

    run = changed_run(ASYNC_BLOCK, tmp_path, "launcher.log", no_progress_word)
    assert run.root_cause.category != "hang"


def _reports(node: str, steps: int, step_time: float):
    import pandas as pd

    return pd.DataFrame(
        {
            "node": [node] * steps,
            "step": [float(i) for i in range(1, steps + 1)],
            "step_time_s": [step_time] * steps,
        }
    )


@pytest.mark.parametrize(
    ("fast_steps", "expected"),
    [(60, ("worker:1", "waited for")), (20, ("worker:0", "slow"))],
)
def test_in_lockstep_the_node_that_does_not_wait_is_the_straggler(fast_steps, expected):
    """Two nodes, step times 0.5 s and 0.008 s. When both report the same 60 steps (synchronous
    training) the slow-looking one waits at the collective for the other; when they do not
    (asynchronous), the one with the long steps is slow itself."""
    import pandas as pd

    from analyzer.diagnose.straggler import _lockstep, _own_time_outlier

    rows = pd.concat(
        [_reports("worker:0", 60, 0.5), _reports("worker:1", fast_steps, 0.008)],
        ignore_index=True,
    )
    assert _lockstep(rows, pd.Index(["worker:0", "worker:1"])) == (fast_steps == 60)
    node, _factor, how, _peers = _own_time_outlier(rows, None)
    assert (node, how) == expected


def test_a_synchronous_throttled_worker_is_named_not_the_chief_that_waits_for_it():
    run = load(LAB / "tf1_sync" / "throttle-worker-training-gz", condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("worker:1", "straggler")


PSS_DTYPE = LAB / "pss_keras" / "dtype-chief-training-slurm"


def test_a_program_error_in_a_function_the_coordinator_sent_is_the_coordinators():
    """pss_keras: the chief feeds string features; worker:1 runs the closure and logs the Cast
    error 7 ms before the chief relays it. The chief's ClusterCoordinator lines say it sent the
    function: the error is its program's."""
    run = load(PSS_DTYPE, condensed=True)
    assert (run.root_cause.node, run.root_cause.category) == ("chief:0", "dtype_mismatch")


def test_without_the_coordinators_dispatch_lines_the_first_to_fail_is_named(tmp_path):
    dispatch = without("when processing closure", "Remote function on worker")
    run = changed_run(PSS_DTYPE, tmp_path, "slurm-4225.0.out", dispatch)
    assert (run.root_cause.node, run.root_cause.category) == ("worker:1", "dtype_mismatch")


SLOW_INPUT = LAB / "mwms_ctl" / "straggler-worker-training-stderr"


def test_the_worker_whose_input_was_still_pending_at_the_end_is_the_straggler():
    """mwms_ctl, worker:1's input reads take 0.5 s: every worker reports the same step times
    (1.2 s at every third step, 0.01 s else). Only worker:1 logs, after its last step, that its
    iterator's GetNextFromShard was cancelled: its next batch was not ready."""
    rc = load(SLOW_INPUT, condensed=True).root_cause
    assert (rc.node, rc.category) == ("worker:1", "straggler")
    assert any("GetNextFromShard was cancelled" in e.text for e in rc.evidence)


def test_without_the_cancelled_input_line_no_node_is_named(tmp_path):
    run = changed_run(SLOW_INPUT, tmp_path, "worker1.stderr", without("GetNextFromShard"))
    assert run.root_cause.node != "worker:1"


def test_without_the_waits_in_the_steps_the_cancelled_input_names_nobody(tmp_path):
    """The same line in a job whose steps never wait (its step times all short) is shutdown
    noise, not a straggler's input."""
    import re

    def no_waits(text: str) -> str:
        return re.sub(r"\(1\.\d+ s\)", "(0.011 s)", text)

    def no_waits_anywhere(run_dir: Path) -> None:
        for name in ("worker0.stderr", "worker2.stderr"):
            path = run_dir / name
            path.write_text(no_waits(path.read_text(encoding="utf-8")), encoding="utf-8")

    changed_run(SLOW_INPUT, tmp_path, "worker1.stderr", no_waits)
    no_waits_anywhere(tmp_path / "run")
    rc = load(tmp_path / "run", condensed=True).root_cause
    assert (rc.node, rc.category) != ("worker:1", "straggler")


ASYNC_THROTTLE = LAB / "tf1_supervisor" / "throttle-worker-training-host"


def test_the_worker_whose_share_of_the_global_steps_fell_is_the_straggler():
    """tf1_supervisor (asynchronous): worker:1's CPU is throttled from a third of the run on.
    Its lines carry no time and its step times stay short; but between two of its steps the
    global step advances by 2 first, then by 4, while between worker:0's it falls from 2 to
    about 1.3: worker:0 makes the steps worker:1 no longer makes."""
    rc = load(ASYNC_THROTTLE, condensed=True).root_cause
    assert (rc.node, rc.category) == ("worker:1", "straggler")
    assert any("global step 23/60" in e.text for e in rc.evidence)


def test_with_an_even_share_of_the_global_steps_no_straggler_is_named(tmp_path):
    """The same run with worker:1's global step rewritten to advance by 2 at each of its steps
    (its share never falls): the signal turns off."""
    import re

    def even(text: str) -> str:
        return re.sub(
            r"worker 1 step (\d+) \(global step \d+/60\)",
            lambda m: f"worker 1 step {m[1]} (global step {3 + 2 * int(m[1])}/60)",
            text,
        )

    run = changed_run(ASYNC_THROTTLE, tmp_path, "host-c/worker.out", even)
    assert (run.root_cause.node, run.root_cause.category) != ("worker:1", "straggler")


def test_a_share_that_fell_because_peers_joined_later_names_nobody(tmp_path):
    """estimator (asynchronous): worker:1 is throttled; with worker:0's reports before the
    throttle removed, no peer reported on both sides of the change (a peer that joined later
    also makes a node's share fall): the signal turns off."""
    folder = LAB / "estimator" / "throttle-worker-training-host"
    rc = load(folder, condensed=True).root_cause
    assert (rc.node, rc.category) == ("worker:1", "straggler")

    def joined_late(text: str) -> str:
        import re

        def keep(line: str) -> bool:
            m = re.search(r"step = (\d+)", line)
            return not (m and int(m[1]) < 460)

        return "".join(x for x in text.splitlines(keepends=True) if keep(x))

    def also_chief(run_dir: Path) -> None:
        path = run_dir / "host-a" / "chief.out"
        path.write_text(joined_late(path.read_text(encoding="utf-8")), encoding="utf-8")

    changed_run(folder, tmp_path, "host-c/worker.out", joined_late)
    also_chief(tmp_path / "run")
    rc = load(tmp_path / "run", condensed=True).root_cause
    assert (rc.node, rc.category) != ("worker:1", "straggler")


def test_a_server_named_only_for_serving_everyone_is_named_with_a_doubt():
    """tf1_sync: worker:1 blocks inside a step; the chief waits for its gradients; both stop at
    global step 18 and nothing says why. ps:0 is named only because it serves them all: the
    verdict says no line shows it stuck. A ps that outlived the SIGTERM is named without it."""
    rc = load(LAB / "tf1_sync" / "block-worker-training-rotated", condensed=True).root_cause
    assert rc.category == "hang"
    if rc.node == "ps:0":
        assert rc.ambiguity and "no line shows ps:0 stuck" in rc.ambiguity
    stuck = load(LAB / "tf1" / "stall_notimeout-ps-training-pod", condensed=True).root_cause
    assert (stuck.node, stuck.category) == ("ps:0", "hang")
    assert "no line shows" not in (stuck.ambiguity or "")
