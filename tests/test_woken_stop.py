"""A frozen task woken by the job's stop (tests/corpus/lab/mwms_runit: runit's ``sv
force-stop`` sends SIGCONT after SIGTERM, as mpirun's abort and systemd's stop do): it logs
TensorFlow's ``SIGTERM caught`` last, after its peers timed out waiting on it or the
coordination service named it for its missed heartbeats. It failed of that wait, not of a
preemption (analyzer/diagnose/endings.py ``woken_waited_on``, verdict ``_waited_on_category``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import changed_run, without

import analyzer

RUNIT = Path(__file__).resolve().parent / "corpus" / "lab" / "mwms_runit"


@pytest.mark.parametrize(
    ("run", "verdict"),
    [
        # the chief froze; its peers' collectives timed out (a timeout was set)
        ("stall_deadline-chief-training-runit_tt", ("worker:0", "deadline_exceeded")),
        # the chief froze with no timeout; its peers' heartbeats to the service it hosts timed out
        ("stall_notimeout-chief-training-runit_tai", ("worker:0", "coordination_failure")),
        # a worker froze with no timeout; the service on worker 0 named it as unhealthy
        ("stall_notimeout-worker-training-runit_tt", ("worker:1", "coordination_failure")),
    ],
)
def test_a_frozen_task_woken_by_the_stop_failed_of_the_wait(run: str, verdict: tuple):
    got = analyzer.load(RUNIT / run, condensed=True).root_cause
    assert (got.node, got.category) == verdict
    assert got.category != "preemption"


def test_without_the_peers_timeouts_its_sigterm_is_read_as_before(tmp_path: Path):
    """One of the two peers' timeouts taken out: no longer most peers waited on it."""
    run = changed_run(
        RUNIT / "stall_deadline-chief-training-runit_tt",
        tmp_path,
        "var/log/tf-worker-1/current",
        without("timed out", "DEADLINE_EXCEEDED", "Deadline"),
    )
    assert run.root_cause.category != "deadline_exceeded"
