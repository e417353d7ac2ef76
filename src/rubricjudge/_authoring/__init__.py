"""Rubrics from data: draft a rubric from a task, refine one from human labels."""

from ._draft import DraftResult, draft_rubric
from ._refine import CandidateResult, CriterionRefinement, RefineResult, refine_rubric
from ._stats import mcnemar_exact

__all__ = [
    "CandidateResult",
    "CriterionRefinement",
    "DraftResult",
    "RefineResult",
    "draft_rubric",
    "mcnemar_exact",
    "refine_rubric",
]
