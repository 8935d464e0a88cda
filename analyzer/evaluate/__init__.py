"""``tfdiag evaluate``: measure the diagnosis against labelled data.

- :mod:`analyzer.evaluate.runs`: folders of whole runs, each with a ``truth.json``
  (sample_logs/, the lab corpus).
"""

from __future__ import annotations

from analyzer.evaluate.runs import evaluate, evaluate_one, find_cases, main

__all__ = ["evaluate", "evaluate_one", "find_cases", "main"]
