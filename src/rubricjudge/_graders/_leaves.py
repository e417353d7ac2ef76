"""Grading leaf by leaf: each leaf criterion's answers combined, then the rubric's score.

:class:`LeafGrader` is what the per-criterion and one-shot graders share once the
judges have answered: which ensemble aggregation fits a criterion
(:meth:`~LeafGrader.method_for`), how one criterion's answers become its report
under the failure policy (:meth:`~LeafGrader.decide`), criteria scored by another
method than a judge's verdict (``_by_method``), and the report's score from the
leaves (:meth:`~LeafGrader.aggregate`, the override point).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._model._relations import decide_related
from .._model._reports import CriterionReport, EvaluationReport
from .._model._rubric import Criterion, Rubric, ScoringType
from .._model._scoring import assemble_reports, finalize
from ._aggregate import CURRENT_RUBRIC, aggregated
from ._base import GradeContext, Grader
from ._by_method import check_methods, grade_by_method
from ._combine import combine
from ._ensemble import check_aggregation
from ._judging import Outcome
from ._options import BinaryAggregation, NominalAggregation, OrdinalAggregation
from ._question import Leaf
from ._repeats import merged_stability

if TYPE_CHECKING:
    from .._methods._functions import FunctionRegistry

__all__ = ["LeafGrader"]


class LeafGrader(Grader):
    """A grader that decides each leaf criterion from its judges' answers, then scores.

    Args (beyond :class:`Grader`'s): ``aggregation``, ``ordinal_aggregation``,
    ``nominal_aggregation`` and ``functions``, as :class:`CriterionGrader` describes.
    """

    def __init__(
        self,
        judge: Any = None,
        *,
        aggregation: BinaryAggregation = "majority",
        ordinal_aggregation: OrdinalAggregation = "mean",
        nominal_aggregation: NominalAggregation = "mode",
        functions: FunctionRegistry | Mapping[str, Callable[..., Any]] | None = None,
        **options: Any,
    ) -> None:
        super().__init__(judge, **options)
        self.aggregation = aggregation
        self.ordinal_aggregation = ordinal_aggregation
        self.nominal_aggregation = nominal_aggregation
        self.functions = functions

    def method_for(self, criterion: Criterion, index: int) -> str:
        """Return the ensemble aggregation for ``criterion`` (validated)."""
        if criterion.aggregation is not None:
            method: str = criterion.aggregation
        elif criterion.is_scored_on_scale:
            method = "weighted_mean"
        elif not criterion.is_multi_choice:
            method = self.aggregation
        elif criterion.scale_type == "nominal":
            method = self.nominal_aggregation
        else:
            method = self.ordinal_aggregation
        where = f"criteria[{criterion.key!r}]" if criterion.key else f"leaf criterion #{index}"
        return check_aggregation(criterion, method, where=where)

    def decide(self, criterion: Criterion, index: int, outcomes: Sequence[Outcome]) -> Leaf:
        """Combine one criterion's outcomes under the failure policy."""
        report = combine(
            criterion,
            outcomes,
            method=self.method_for(criterion, index),
            ensemble=self.ensemble,
            policy=self.failure,
        )
        stability = merged_stability(outcomes)  # repeated judgments: the answers and flips
        if stability is not None:
            report = report.model_copy(update={"stability": stability})
        return report, sum(o.calls for o in outcomes), sum(1 for o in outcomes if o.cached)

    async def run_method(self, ctx: GradeContext, criterion: Criterion) -> CriterionReport:
        """Score a criterion whose method is not ``llm`` (code, schema, decode ...).

        A failure it records goes through the same failure policy as a judge's.
        """
        judge = self.members()[0].judge
        return await grade_by_method(
            criterion, ctx.submission, judge=judge, functions=self.functions, failure=self.failure
        )

    def check_methods(self, criteria: Sequence[Criterion]) -> None:
        """Raise ConfigError now for a non-``llm`` criterion that cannot run (before any call)."""
        if any(c.method is not ScoringType.LLM for c in criteria):
            check_methods(criteria, self.functions, self.members()[0].judge)

    async def finish(
        self, ctx: GradeContext, leaves: Sequence[Leaf], extra_calls: int = 0
    ) -> EvaluationReport:
        """Assemble leaf results and hand them to :meth:`aggregate` for the score."""
        # related criteria are decided together before anything is scored (``_relations``)
        decided = decide_related(ctx.rubric, [r for r, _, _ in leaves])
        reports = assemble_reports(ctx.rubric.criteria, decided)
        owner = type(self).__name__
        report = await aggregated(self.aggregate, reports, ctx.rubric, self.normalize, owner)
        return report.model_copy(
            update={
                "judge_calls": sum(c for _, c, _ in leaves) + extra_calls,
                "cached_calls": sum(k for _, _, k in leaves),
                "metadata": {**self._metadata(), **report.metadata},
            }
        )

    def aggregate(
        self,
        reports: list[CriterionReport],
        *,
        rubric: Rubric | None = None,
        normalize: bool = True,
    ) -> EvaluationReport | Awaitable[EvaluationReport]:
        """Turn the criteria's results into the report's score (the seed's ``aggregate()``).

        Override it in a subclass to score differently, sync or ``async def``, as the
        seed writes it (``aggregate(self, judge_results, *, normalize=True)``) or with a
        ``rubric`` keyword too: it is passed only to an override that takes it. The
        default is the shared scoring (``_scoring.finalize``) with this grader's policy,
        on the rubric being graded (also when an override calls it without ``rubric``).
        """
        if rubric is None:
            rubric = CURRENT_RUBRIC.get(None) or Rubric([r.criterion for r in reports])
        policy = self.policy
        if normalize != policy.normalize:
            policy = policy.with_normalize(normalize)
        return finalize(rubric, reports, policy)
