"""Group ranking: the submissions to one query placed relative to each other (GRPO groups).

Two methods (``benchmarks/group_ranking.py`` measures them against human scores):

* ``criteria`` (the default): every submission is graded on its own, criterion by
  criterion; submissions whose scores tie are then compared pairwise, both orders
  asked (``tie_break``: ``holistic``, one comparison over the whole rubric, or
  ``per-criterion``, or ``none``), and ordered within the tie by their wins
  (a tied or failed comparison counts half to each).
* ``listwise``: the judge sees every submission at once and ranks them, asked in
  the order given and reversed; a submission's place is its mean position.

Rewards and ranks follow from the order as ``_model._group`` defines them.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Sequence
from typing import Any, Self

from .._aio import gather_all, run_sync
from .._errors import ConfigError, JudgeError
from .._judges._base import Judge, JudgeRequest
from .._model._group import GroupReport, ListwiseAnswer, TieBreak, rank_by
from .._model._reports import EvaluationReport, TokenUsage
from .._model._rubric import Criterion, Rubric
from ._base import Grader, _as_rubric
from ._criterion import CriterionGrader
from ._group_prompts import SYSTEM_LISTWISE, listwise_prompt, listwise_schema
from ._inputs import Submission, to_submission
from ._judging import Member, Outcome, call
from ._pairwise import PairwiseGrader

__all__ = ["GROUP_METHODS", "TIE_BREAKS", "GroupRanker"]

GROUP_METHODS = ("criteria", "listwise")
TIE_BREAKS = ("holistic", "per-criterion", "none")


def read_ranking(data: Any, n: int) -> list[int]:
    """The 0-based submission order of a listwise reply (a permutation of 1..n).

    Raises:
        JudgeError: category ``parse`` when it is not one.
    """
    raw = data.get("ranking") if isinstance(data, dict) else None
    ok = isinstance(raw, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in raw)
    if not ok or sorted(raw or []) != list(range(1, n + 1)):
        raise JudgeError(
            f"ranking {raw!r} does not name each answer from 1 to {n} once",
            category="parse",
            raw_text=repr(data)[:500],
        )
    return [x - 1 for x in raw or []]


class GroupRanker:
    """Ranks the submissions to one query; each gets a reward in [0, 1] and a rank.

    Args:
        judge / judges: the judge(s) of the graders built here (default ``"local"``).
        method: ``"criteria"`` or ``"listwise"`` (see the module docstring).
        tie_break: how equal scores are ordered with ``criteria``: ``"holistic"``,
            ``"per-criterion"`` or ``"none"``.
        grader: the grader of each submission on its own (default a
            :class:`CriterionGrader` with ``judge`` and ``grader_options``).
        pairwise: the :class:`PairwiseGrader` of tie-breaks and listwise rankings.
        concurrency, judge_options, repeats, repeat_temperature, repeat_variation:
            passed to the graders built here.
        grader_options: more keyword arguments of the default grader.
    """

    def __init__(
        self,
        judge: Any = None,
        *,
        judges: Sequence[Any] | None = None,
        method: str = "criteria",
        tie_break: str = "holistic",
        grader: Grader | None = None,
        pairwise: PairwiseGrader | None = None,
        concurrency: int | None = None,
        judge_options: dict[str, Any] | None = None,
        repeats: int = 1,
        repeat_temperature: float = 0.7,
        repeat_variation: str = "auto",
        **grader_options: Any,
    ) -> None:
        if method not in GROUP_METHODS:
            raise ConfigError(f"method {method!r} is not one of: {', '.join(GROUP_METHODS)}")
        if tie_break not in TIE_BREAKS:
            raise ConfigError(f"tie_break {tie_break!r} is not one of: {', '.join(TIE_BREAKS)}")
        if method == "listwise" and repeats != 1:
            raise ConfigError(
                "repeats apply to the criteria method (scores and tie-breaks); a listwise "
                "ranking is asked once in each of its two orders"
            )
        self.method = method
        self.tie_break = tie_break
        common: dict[str, Any] = {
            "judges": judges,
            "concurrency": concurrency,
            "judge_options": judge_options,
            "repeats": repeats,
            "repeat_temperature": repeat_temperature,
            "repeat_variation": repeat_variation,
        }
        self.grader: Grader = grader or CriterionGrader(judge, **common, **grader_options)
        mode = "per-criterion" if tie_break == "per-criterion" else "holistic"
        self.pairwise = pairwise or PairwiseGrader(judge, mode=mode, **common)

    def with_judges(self, wrap: Callable[[Judge], Judge]) -> Self:
        """A copy whose graders' judges are ``wrap(judge)`` (a run records them)."""
        clone = copy.copy(self)
        clone.grader = self.grader.with_judges(wrap)
        clone.pairwise = self.pairwise.with_judges(wrap)
        return clone

    @property
    def judge_ids(self) -> list[str]:
        """The ids of the judges."""
        return self.pairwise.judge_ids

    async def rank(
        self,
        rubric: Rubric | list[Criterion],
        submissions: Sequence[Any],
        *,
        query: str | None = None,
        reference_submission: str | None = None,
        item_id: str | None = None,
    ) -> GroupReport:
        """Rank ``submissions`` (each text or ``{"thinking", "output"}``) against ``rubric``.

        Raises:
            ConfigError: a bad rubric, an empty group or a bad submission.
        """
        r = _as_rubric(rubric)
        if isinstance(submissions, str) or not isinstance(submissions, Sequence):
            raise ConfigError("submissions must be a list of submissions")
        if not submissions:
            raise ConfigError("submissions is empty; a group needs at least one submission")
        subs = [to_submission(s, where=f"submissions[{i}]") for i, s in enumerate(submissions)]
        if any(s.media for s in subs):  # the judge would rank placeholders it cannot see
            raise ConfigError(
                "group ranking does not send images or documents to the judge yet; grade "
                "each submission with the per-criterion grader"
            )
        if self.method == "listwise":
            return await self._listwise(r, subs, query, reference_submission, item_id)
        return await self._criteria(r, subs, query, reference_submission, item_id)

    def rank_sync(
        self,
        rubric: Rubric | list[Criterion],
        submissions: Sequence[Any],
        *,
        query: str | None = None,
        reference_submission: str | None = None,
        item_id: str | None = None,
    ) -> GroupReport:
        """Blocking :meth:`rank`."""
        return run_sync(
            self.rank(
                rubric,
                submissions,
                query=query,
                reference_submission=reference_submission,
                item_id=item_id,
            )
        )

    # -- per-criterion scores, pairwise tie-breaks --------------------------------
    async def _criteria(
        self,
        r: Rubric,
        subs: list[Submission],
        query: str | None,
        reference: str | None,
        item_id: str | None,
    ) -> GroupReport:
        reports: list[EvaluationReport] = await gather_all(
            [
                self.grader.grade(
                    r, s, query=query, reference_submission=reference, item_id=f"{item_id}/{i}"
                )
                for i, s in enumerate(subs)
            ]
        )
        scores = [rep.score for rep in reports]
        wins = [0.0] * len(subs)
        pairs: list[tuple[int, int]] = []
        if self.tie_break != "none":
            for i, j in itertools.combinations(range(len(subs)), 2):
                si, sj = scores[i], scores[j]
                if si is not None and sj is not None and abs(si - sj) < 1e-9:
                    pairs.append((i, j))
        compared = await gather_all(
            [
                self.pairwise.compare(
                    r,
                    subs[i],
                    subs[j],
                    query=query,
                    reference_submission=reference,
                    item_id=f"{item_id}/{i}-{j}",
                )
                for i, j in pairs
            ]
        )
        breaks = []
        for (i, j), rep in zip(pairs, compared, strict=True):
            pref = rep.preferred
            wins[i] += 1.0 if pref == "a" else 0.0 if pref == "b" else 0.5
            wins[j] += 1.0 if pref == "b" else 0.0 if pref == "a" else 0.5
            breaks.append(
                TieBreak(
                    i=i,
                    j=j,
                    preferred=pref,
                    position_consistent=rep.position_consistent,
                    error=rep.error,
                )
            )
        keys = [None if s is None else (s, wins[k]) for k, s in enumerate(scores)]
        rewards, ranks = rank_by(keys)
        counted: list[Any] = [*reports, *compared]
        failed = [k for k, s in enumerate(scores) if s is None]
        return GroupReport(
            id=item_id,
            method="criteria",
            rewards=rewards,
            ranks=ranks,
            scores=scores,
            tie_breaks=breaks or None,
            reports=reports,
            error=f"{len(failed)} of {len(subs)} submissions could not be graded"
            if failed
            else None,
            error_count=sum(rep.error_count for rep in counted),
            **_totals(counted),
            metadata={"method": "criteria", "tie_break": self.tie_break},
        )

    # -- one listwise prompt, two orders --------------------------------------------
    async def _ask_listwise(
        self, member: Member, request: JudgeRequest, shown: list[int]
    ) -> tuple[Outcome, ListwiseAnswer]:
        out = Outcome(judge_id=member.id, weight=member.weight)
        response = await call(member, request, limiter=self.pairwise.limiter(), outcome=out)
        if response is not None:
            try:
                order = read_ranking(response.data, len(shown))
            except JudgeError as e:
                out.error = e
            else:
                return out, ListwiseAnswer(shown=shown, ranking=[shown[k] for k in order])
        err = out.error
        return out, ListwiseAnswer(
            shown=shown,
            error=str(err) if err else "no answer",
            error_category=err.category if err else None,
        )

    async def _listwise(
        self,
        r: Rubric,
        subs: list[Submission],
        query: str | None,
        reference: str | None,
        item_id: str | None,
    ) -> GroupReport:
        n = len(subs)
        orders = [list(range(n))] + ([list(reversed(range(n)))] if n > 1 else [])
        jobs = []
        for m in self.pairwise.members():
            for shown in orders:
                user = listwise_prompt(
                    r, [subs[k] for k in shown], query=query, reference=reference
                )
                req = JudgeRequest(
                    system=SYSTEM_LISTWISE,
                    user=user,
                    schema=listwise_schema(n),
                    schema_name="listwise_ranking",
                    tags={"item": item_id, "shown": shown},
                )
                jobs.append(self._ask_listwise(m, req, shown))
        asked = await gather_all(jobs)
        answers = [a for _, a in asked]
        positions: list[list[int]] = [[] for _ in range(n)]
        for a in answers:
            for pos, k in enumerate(a.ranking or []):
                positions[k].append(pos)
        keys = [-sum(p) / len(p) if p else None for p in positions]
        rewards, ranks = rank_by(keys)
        outs = [o for o, _ in asked]
        errors = [a for a in answers if a.error is not None]
        return GroupReport(
            id=item_id,
            method="listwise",
            rewards=rewards,
            ranks=ranks,
            listwise=answers,
            error="no ranking could be read: " + str(errors[0].error)
            if len(errors) == len(answers)
            else None,
            error_count=len(errors),
            judge_calls=sum(o.calls for o in outs),
            cached_calls=sum(1 for o in outs if o.cached),
            token_usage=TokenUsage.total([o.usage for o in outs]),
            completion_cost=_cost([o.cost for o in outs]),
            metadata={"method": "listwise"},
        )


def _cost(costs: Sequence[float | None]) -> float | None:
    return None if any(c is None for c in costs) else float(sum(c or 0.0 for c in costs))


def _totals(reports: Sequence[Any]) -> dict[str, Any]:
    return {
        "judge_calls": sum(rep.judge_calls for rep in reports),
        "cached_calls": sum(rep.cached_calls for rep in reports),
        "token_usage": TokenUsage.total([rep.token_usage for rep in reports]),
        "completion_cost": _cost([rep.completion_cost for rep in reports]),
    }
