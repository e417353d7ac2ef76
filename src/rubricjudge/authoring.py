"""Rubrics from data: draft a rubric from a task, refine one from human labels.

See docs/authoring.md. ``draft_rubric`` asks a judge for a rubric and checks it with
``lint``; ``refine_rubric`` rewrites the criteria a judge gets wrong and keeps a rewrite
only when agreement with held-out labels rises beyond noise (``mcnemar_exact``).
"""

from __future__ import annotations

from ._authoring._draft import DraftResult, draft_rubric
from ._authoring._refine import refine_rubric
from ._authoring._refine_report import CandidateResult, CriterionRefinement, RefineResult
from ._authoring._stats import mcnemar_exact

__all__ = [
    "CandidateResult",
    "CriterionRefinement",
    "DraftResult",
    "RefineResult",
    "draft_rubric",
    "mcnemar_exact",
    "refine_rubric",
]
