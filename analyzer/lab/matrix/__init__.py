"""The lab as a matrix: cluster styles x faults x target roles x phases x file namings.

Everything here is data (``STYLES``, ``FAULTS``, ``PHASES``, ``NAMINGS``) plus one
generic launcher, :func:`run_cell`, that turns a :class:`Cell` into a real run:
start the cluster the style describes, wait for the phase's log line, inject the
fault the way the fault table says (a signal, an argument to the task script, an
edited TF_CONFIG, a task withheld or started late, a squatter process, a second
interpreter), wait for the end (or end the job like a scheduler's time limit when
it stops making progress), collect the logs under the naming's file names, check
the fault's evidence and write ``truth.json``.

The truth comes only from what was injected and what the processes did (exit
codes, the evidence regexes, whether the launcher had to end the job), never from
tfdiag's diagnosis.  No TensorFlow import here.
"""

from __future__ import annotations

from .cells import NAMED, NAMINGS, PRIORITY, Cell, cells, file_name
from .faults import ANY_ERROR, BIND_ERROR, FAMILIES, FAULTS, PHASES, USUAL_CATEGORY, Fault
from .launch import PREEMPT_GRACE, CellError, old_python, style_python
from .run import (
    COMPOSE_TIMEOUT_NOTE,
    HONCHO_GONE_NOTE,
    HONCHO_TIMEOUT_NOTE,
    K8S_TIMEOUT_NOTE,
    MPI_TIMEOUT_NOTE,
    PARALLEL_TIMEOUT_NOTE,
    PDSH_TIMEOUT_NOTE,
    RAY_TIMEOUT_NOTE,
    RUNIT_TIMEOUT_NOTE,
    SPARK_TIMEOUT_NOTE,
    SUPERVISORD_TIMEOUT_NOTE,
    SYSTEMD_TIMEOUT_NOTE,
    TMUX_TIMEOUT_NOTE,
    corpus_table,
    node_log_summary,
    run_cell,
    run_matrix,
)
from .settle import STEP_TIME_RE, step_time_stats
from .styles import (
    ALT_PYTHON_ENV,
    LAB_VENV_STYLES,
    OLD_RELEASE_CANDIDATES,
    RAY_CANDIDATES,
    RAY_PYTHON_ENV,
    STYLES,
    TF215_CANDIDATES,
    TF215_PYTHON_ENV,
    Style,
)

__all__ = [
    "ALT_PYTHON_ENV",
    "ANY_ERROR",
    "BIND_ERROR",
    "COMPOSE_TIMEOUT_NOTE",
    "FAMILIES",
    "FAULTS",
    "HONCHO_GONE_NOTE",
    "HONCHO_TIMEOUT_NOTE",
    "K8S_TIMEOUT_NOTE",
    "LAB_VENV_STYLES",
    "MPI_TIMEOUT_NOTE",
    "NAMED",
    "NAMINGS",
    "OLD_RELEASE_CANDIDATES",
    "PARALLEL_TIMEOUT_NOTE",
    "PDSH_TIMEOUT_NOTE",
    "PHASES",
    "PREEMPT_GRACE",
    "PRIORITY",
    "RAY_CANDIDATES",
    "RAY_PYTHON_ENV",
    "RAY_TIMEOUT_NOTE",
    "RUNIT_TIMEOUT_NOTE",
    "SPARK_TIMEOUT_NOTE",
    "STEP_TIME_RE",
    "STYLES",
    "SUPERVISORD_TIMEOUT_NOTE",
    "SYSTEMD_TIMEOUT_NOTE",
    "TF215_CANDIDATES",
    "TF215_PYTHON_ENV",
    "TMUX_TIMEOUT_NOTE",
    "USUAL_CATEGORY",
    "Cell",
    "CellError",
    "Fault",
    "Style",
    "cells",
    "corpus_table",
    "file_name",
    "node_log_summary",
    "old_python",
    "run_cell",
    "run_matrix",
    "step_time_stats",
    "style_python",
]
