"""What ``refine`` measured: each candidate, each criterion, and the whole refinement."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .._model._criterion import Criterion
from .._model._rubric import Rubric
from ._stats import TEST_NAME

__all__ = ["CandidateResult", "CriterionRefinement", "RefineResult"]


@dataclass(frozen=True)
class CandidateResult:
    """One proposed change to a criterion and how it did on the held-out items."""

    kind: str  # rewrite, exclusion or examples
    criterion: Criterion
    why: str
    agreement: float | None  # on the held-out items with a label for this criterion
    b: int  # held-out items the original got right and this candidate wrong
    c: int  # held-out items this candidate got right and the original wrong
    p_value: float
    kept: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data (the criterion as its native data)."""
        return {
            "kind": self.kind,
            "requirement": self.criterion.requirement,
            "examples": _count_examples(self.criterion),
            "why": self.why,
            "heldout_agreement": self.agreement,
            "original_right_candidate_wrong": self.b,
            "candidate_right_original_wrong": self.c,
            "p_value": self.p_value,
            "kept": self.kept,
        }


@dataclass
class CriterionRefinement:
    """One leaf criterion: agreement before and after, and the candidates tried."""

    name: str
    requirement: str
    propose_n: int
    propose_agreement: float | None
    labeller_pairs: int  # propose items with two or more labellers on this criterion
    labeller_disagreements: int
    heldout_n: int
    before: float | None
    after: float | None
    targeted: bool = False
    candidates: list[CandidateResult] = field(default_factory=list)
    change: CandidateResult | None = None
    dropped: list[str] = field(default_factory=list)  # proposals not tested, and why

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data."""
        return {
            "criterion": self.name,
            "requirement": self.requirement,
            "propose_items": self.propose_n,
            "propose_agreement": self.propose_agreement,
            "labeller_pairs": self.labeller_pairs,
            "labeller_disagreements": self.labeller_disagreements,
            "heldout_items": self.heldout_n,
            "heldout_agreement_before": self.before,
            "heldout_agreement_after": self.after,
            "targeted": self.targeted,
            "change": self.change.kind if self.change else None,
            "candidates": [c.to_dict() for c in self.candidates],
            "dropped_proposals": self.dropped,
        }


@dataclass
class RefineResult:
    """What ``refine`` measured and the rubric it keeps (the original when nothing helped)."""

    original: Rubric
    rubric: Rubric
    criteria: list[CriterionRefinement]
    judge: str
    seed: int
    alpha: float
    tests: int
    propose_ids: list[str]
    heldout_ids: list[str]
    changelog: list[str]
    test: str = TEST_NAME

    @property
    def changed(self) -> bool:
        """True when at least one candidate passed the test."""
        return any(c.change is not None for c in self.criteria)

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return {
            "judge": self.judge,
            "seed": self.seed,
            "test": self.test,
            "alpha": self.alpha,
            "candidates_tested": self.tests,
            "alpha_per_candidate": self.alpha / self.tests if self.tests else None,
            "propose_ids": self.propose_ids,
            "heldout_ids": self.heldout_ids,
            "changed": self.changed,
            "original_version": self.original.version,
            "refined_version": self.rubric.version if self.changed else None,
            "changelog": self.changelog,
            "criteria": [c.to_dict() for c in self.criteria],
        }


def _count_examples(c: Criterion) -> int:
    return sum(len(v) for v in (c.examples or {}).values())
