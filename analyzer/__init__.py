"""tfdiag: post-mortem log and trace analyzer for distributed TensorFlow.

The pipeline, one module per stage::

    sources   (discover files, open compressed files and bundles)
    formats   (recognise and parse line formats, column-wise)
    identity  (which node wrote a file: <job>:<index>)
    timeline  (the merged, time-sorted event table; Parquet I/O)
    ingest    (runs the three stages above over every file)
    classify  (apply the pattern library to events → findings)
    diagnose  (first failing node, root cause, victims)
    report    (terminal, HTML, JSON)

Notebook use::

    import analyzer
    run = analyzer.load("logs/")
    run.root_cause, run.timeline, run.findings, run.nodes

Heavy dependencies (pandas, pyarrow, matplotlib) are imported lazily so that
``import analyzer`` and ``tfdiag --help`` stay fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from analyzer.run import Run

__all__ = ["Run", "__version__", "load"]


def load(*paths: Any, **options: Any) -> Run:
    """Ingest, classify and diagnose the logs under ``paths``; see :class:`analyzer.run.Run`."""
    from analyzer.run import load as _load

    return _load(*paths, **options)


def __getattr__(name: str) -> Any:
    if name == "Run":
        from analyzer.run import Run

        return Run
    raise AttributeError(name)
