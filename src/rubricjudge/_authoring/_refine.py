"""``refine``: rewrite the criteria a judge gets wrong, keeping only what measurably helps.

With a labelled dataset:

1. the labelled items are split (``seed``) into a *propose* part and a *held-out*
   part (``holdout`` of them); the held-out items are never shown to the judge as
   evidence for a rewrite;
2. every leaf criterion is judged alone on every labelled item (the per-criterion
   prompt holds the guidelines, query, reference and this criterion only, so this is
   what grading the whole rubric asks);
3. the criteria where the judge disagrees most with the labels on the propose part,
   plus how often labellers disagree with each other there (``human_labels`` in an
   item's metadata: an ambiguous criterion), are the targets (``max_criteria``);
4. for each target the judge proposes rewrites and exclusions from the propose
   items it got wrong, and a candidate with labelled propose answers added as
   examples is built without the judge;
5. each candidate is judged on the held-out items; it is kept only if its agreement
   with the labels there rises beyond noise: McNemar's exact test (one-sided) on the
   paired held-out verdicts, at ``alpha`` divided by the number of candidates tested
   (Bonferroni), and at most one change per criterion (the best).

A judge failure anywhere stops the refinement with an error: a failure is never a
verdict, so no agreement is computed from it and nothing is written.

Step 4's candidates come from ``_proposals``; what is measured is reported in the
types of ``_refine_report``.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Sequence
from typing import Any

from .._datasets._labels import leaf_names, read_records
from .._errors import ConfigError, JudgeError, RunError
from .._graders._criterion import CriterionGrader
from .._graders._inputs import to_submission
from .._judges._registry import get_judge
from .._model._criterion import Criterion
from .._model._reports import EvaluationReport
from .._model._rubric import Rubric
from .._model._scoring import leaf_reports
from .._model._seams import AsyncGrader
from ._proposals import examples_candidate, propose_candidates
from ._refine_report import CandidateResult, CriterionRefinement, RefineResult
from ._stats import mcnemar_exact

__all__ = ["bump_minor", "refine_rubric"]

_NOTHING = "; nothing was written"
_SHOWN = 6


def _truth_text(value: Any) -> str | None:
    if value is None:
        return None
    return str(value.value) if hasattr(value, "value") else str(value)


def _verdict_text(report: Any, where: str) -> str:
    """The leaf verdict as ground truth writes it; a judge failure raises."""
    leaves = list(leaf_reports(report.report or []))
    if len(leaves) != 1 or report.error:
        raise RunError(f"{where}: the judge failed ({report.error or 'no verdict'}){_NOTHING}")
    cr = leaves[0]
    if cr.error is not None:
        raise RunError(
            f"{where}: the judge failed ({cr.error_category or 'error'}: {cr.error}){_NOTHING}"
        )
    if cr.selection is not None:
        return str(cr.selection.label)
    if cr.scale_score is not None:
        return f"{cr.scale_score.score:g}"
    if cr.verdict is None:
        raise RunError(f"{where}: the judge gave no verdict{_NOTHING}")
    return str(cr.verdict.value)


def _agreement(verdicts: Sequence[str], truths: Sequence[str | None]) -> tuple[int, float | None]:
    pairs = [(v, t) for v, t in zip(verdicts, truths, strict=True) if t is not None]
    if not pairs:
        return 0, None
    return len(pairs), sum(v == t for v, t in pairs) / len(pairs)


def _discordant(
    before: Sequence[str], after: Sequence[str], truths: Sequence[str | None]
) -> tuple[int, int]:
    """(original right and candidate wrong, candidate right and original wrong) counts."""
    b = c = 0
    for v0, v1, t in zip(before, after, truths, strict=True):
        if t is None:
            continue
        b += v0 == t != v1
        c += v1 == t != v0
    return b, c


def _replace_leaf(criteria: list[Criterion], index: int, new: Criterion) -> list[Criterion]:
    """The criteria with leaf number ``index`` (rubric leaf order) replaced by ``new``."""
    counter = [0]

    def walk(cs: list[Criterion]) -> list[Criterion]:
        out = []
        for c in cs:
            if c.subcriteria:
                out.append(c.model_copy(update={"subcriteria": walk(c.subcriteria)}))
                continue
            out.append(new if counter[0] == index else c)
            counter[0] += 1
        return out

    return walk(criteria)


def bump_minor(version: str | None) -> str:
    """The next minor version (``1.2.3`` -> ``1.3.0``; none yet -> ``1.1.0``)."""
    if not version:
        return "1.1.0"
    major, minor, _ = (int(p) for p in version.split("."))
    return f"{major}.{minor + 1}.0"


class _Grading:
    """Judges one criterion alone on labelled items, each (criterion, item) once."""

    def __init__(
        self,
        grader: AsyncGrader[Rubric, EvaluationReport],
        rubric: Rubric,
        dataset: Any,
        concurrency: int,
    ) -> None:
        self.grader = grader
        self.rubric = rubric
        self.dataset = dataset
        self.gate = asyncio.Semaphore(concurrency)
        self.memo: dict[tuple[str, int], str] = {}
        self.calls = 0

    async def _one(self, c: Criterion, key: str, i: int) -> str:
        if (key, i) in self.memo:
            return self.memo[(key, i)]
        alone = Rubric([c], guidelines=self.rubric.guidelines, name=self.rubric.name)
        item = self.dataset.items[i]
        where = f"item {item.id or i}, criterion {c.key or c.requirement[:40]!r}"
        async with self.gate:
            self.calls += 1
            try:
                report = await self.grader.grade(
                    alone,
                    item.submission,
                    query=self.dataset.get_item_query(i),
                    reference_submission=self.dataset.get_item_reference_submission(i),
                    item_id=item.id,
                )
            except JudgeError as e:
                raise RunError(f"{where}: the judge failed ({e}); nothing was written") from None
        verdict = _verdict_text(report, where)
        self.memo[(key, i)] = verdict
        return verdict

    async def table(self, crits: Sequence[Criterion], indices: Sequence[int]) -> list[list[str]]:
        """Each criterion's verdicts on the items, asked item by item (``[criterion][item]``).

        One item's criteria are asked one after another, so a judge that reuses the
        shared prompt prefix (the local judge's KV cache) reads each submission once.
        """
        keys = [c.model_dump_json(by_alias=True) for c in crits]
        flat = await asyncio.gather(
            *(self._one(c, key, i) for i in indices for c, key in zip(crits, keys, strict=True))
        )
        n = len(crits)
        return [[flat[p * n + k] for p in range(len(indices))] for k in range(n)]


def _labeller_counts(dataset: Any, indices: Sequence[int], name: str) -> tuple[int, int]:
    pairs = disagreements = 0
    for i in indices:
        item = dataset.items[i]
        records = read_records(item.metadata or {}, f"items[{i}]").get(name, {})
        labels = {r.label for r in records.values()}
        if len(records) >= 2:
            pairs += 1
            disagreements += len(labels) > 1
    return pairs, disagreements


def _split(labelled: list[int], holdout: float, seed: int) -> tuple[list[int], list[int]]:
    order = list(labelled)
    random.Random(seed).shuffle(order)
    n_hold = round(len(order) * holdout)
    if n_hold < 1 or n_hold >= len(order):
        raise ConfigError(
            f"{len(order)} labelled item(s) cannot be split into a propose part and a held-out "
            f"part of {holdout:g}; label more items or change --holdout"
        )
    return sorted(order[n_hold:]), sorted(order[:n_hold])


def _submission_text(item: Any) -> str:
    return to_submission(item.submission).output


async def refine_rubric(
    rubric: Rubric,
    dataset: Any,
    judge: Any,
    *,
    seed: int = 0,
    holdout: float = 0.5,
    max_criteria: int = 3,
    candidates: int = 2,
    examples: int = 2,
    alpha: float = 0.05,
    concurrency: int = 4,
    grader_options: dict[str, Any] | None = None,
    log: Callable[[str], None] | None = None,
) -> RefineResult:
    """Refine ``rubric`` from ``dataset``'s labels; see the module docstring.

    Args:
        rubric: the rubric the labels were given for (its leaves name the labels).
        dataset: a labelled :class:`RubricDataset`.
        judge: a Judge or judge spec: it grades and proposes.
        seed: the propose / held-out split and the judge's seed.
        holdout: the share of labelled items held out to test candidates.
        max_criteria: how many criteria (those the judge gets wrong most) to work on.
        candidates: rewrites asked of the judge per criterion.
        examples: labelled propose answers added as examples in one more candidate
            (0: no such candidate).
        alpha: the test's level over all candidates (Bonferroni-divided).
        concurrency: judge calls at once.
        grader_options: passed to :class:`CriterionGrader` (``reasons`` is off).
        log: called with a line of progress.

    Returns:
        The refined rubric (a minor version up, a changelog in its metadata) or the
        original when no candidate passed, with the per-criterion measurements.

    Raises:
        ConfigError: labels that do not fit the rubric, or too few to split.
        RunError: the judge failed; nothing is returned.
    """
    say = log or (lambda _line: None)
    if not 0.0 < holdout < 1.0:
        raise ConfigError(f"holdout {holdout!r} must be between 0 and 1")
    if not 0.0 < alpha < 1.0:
        raise ConfigError(f"alpha {alpha!r} must be between 0 and 1")
    if max_criteria < 0 or candidates < 0 or examples < 0 or concurrency < 1:
        raise ConfigError(
            "max_criteria, candidates and examples must be 0 or more, and concurrency 1 or more"
        )
    names = leaf_names(rubric)
    if dataset.rubric is not None and leaf_names(dataset.rubric) != names:
        raise ConfigError(
            f"the dataset's labels are for the criteria {leaf_names(dataset.rubric)}, the rubric "
            f"has {names}; refine the rubric the dataset was labelled with"
        )
    for i, item in enumerate(dataset.items):
        if item.rubric is not None:
            raise ConfigError(
                f"items[{i}] has a rubric of its own; refine works on a dataset graded with "
                "one rubric"
            )
    labelled = [
        i
        for i, it in enumerate(dataset.items)
        if it.ground_truth is not None and any(v is not None for v in it.ground_truth)
    ]
    if not labelled:
        raise ConfigError("the dataset has no labelled items (ground_truth); label some first")
    propose, heldout = _split(labelled, holdout, seed)
    the_judge = get_judge(judge)
    options = {"reasons": False, **(grader_options or {})}
    grader = CriterionGrader(the_judge, **options)
    grading = _Grading(grader, rubric, dataset, concurrency)
    leaves = rubric.leaves()
    truths = {i: [_truth_text(v) for v in (dataset.items[i].ground_truth or [])] for i in labelled}
    texts = {i: _submission_text(dataset.items[i]) for i in propose}

    say(f"judging {len(leaves)} criteria on {len(labelled)} labelled items")
    results: list[CriterionRefinement] = []
    propose_verdicts: dict[int, list[str]] = {}
    heldout_verdicts: dict[int, list[str]] = {}
    every = await grading.table(leaves, propose + heldout)
    for k, c in enumerate(leaves):
        got = every[k]
        propose_verdicts[k], heldout_verdicts[k] = got[: len(propose)], got[len(propose) :]
        pn, pa = _agreement(propose_verdicts[k], [truths[i][k] for i in propose])
        hn, ha = _agreement(heldout_verdicts[k], [truths[i][k] for i in heldout])
        pairs, differ = _labeller_counts(dataset, propose, names[k])
        results.append(
            CriterionRefinement(names[k], c.requirement, pn, pa, pairs, differ, hn, ha, ha)
        )

    def badness(k: int) -> float:
        r = results[k]
        wrong = 1.0 - r.propose_agreement if r.propose_agreement is not None else 0.0
        ambiguous = r.labeller_disagreements / r.labeller_pairs if r.labeller_pairs else 0.0
        return wrong + ambiguous

    ranked = sorted(
        (k for k in range(len(leaves)) if badness(k) > 0 and results[k].heldout_n > 0),
        key=lambda k: (-badness(k), k),
    )
    targets = ranked[:max_criteria]
    built: dict[int, list[tuple[str, Criterion, str]]] = {}
    for k in targets:
        c = leaves[k]
        r = results[k]
        r.targeted = True
        p_truths = [truths[i][k] for i in propose]
        wrong = [
            (texts[i], str(t), v)
            for i, t, v in zip(propose, p_truths, propose_verdicts[k], strict=True)
            if t is not None and t != v
        ][:_SHOWN]
        note = (
            f"Labellers disagreed with each other on {r.labeller_disagreements} of "
            f"{r.labeller_pairs} answers they both labelled: the wording may be ambiguous."
            if r.labeller_disagreements
            else ""
        )
        tried: list[tuple[str, Criterion, str]] = []
        seen = {" ".join(c.requirement.split()).casefold()}
        if candidates and wrong:
            say(f"{r.name}: asking the judge for {candidates} rewrite(s)")
            for kind, text, why in await propose_candidates(
                the_judge, c, dataset.prompt, rubric.guidelines, wrong, note, candidates, seed
            ):
                if not text or text.casefold() in seen:
                    why_not = "empty" if not text else "repeats the wording or another proposal"
                    r.dropped.append(f"{kind} {text[:80]!r}: {why_not}")
                    continue
                seen.add(text.casefold())
                tried.append((kind, c.model_copy(update={"requirement": text}), why))
        with_examples = examples_candidate(
            c, [texts[i] for i in propose], p_truths, propose_verdicts[k], examples
        )
        if with_examples is not None:
            tried.append(("examples", with_examples, "labelled propose answers shown as examples"))
        built[k] = tried
    tests = sum(len(v) for v in built.values())
    per_test = alpha / tests if tests else alpha
    flat = [(k, kind, cand, why) for k, tried in built.items() for kind, cand, why in tried]
    if flat:
        say(f"judging {len(flat)} candidate(s) on {len(heldout)} held-out items")
    judged = await grading.table([cand for _, _, cand, _ in flat], heldout) if flat else []
    for (k, kind, cand, why), after in zip(flat, judged, strict=True):
        h_truths = [truths[i][k] for i in heldout]
        b, cc = _discordant(heldout_verdicts[k], after, h_truths)
        _, agree = _agreement(after, h_truths)
        p = mcnemar_exact(b, cc)
        results[k].candidates.append(CandidateResult(kind, cand, why, agree, b, cc, p, False))
    for k in built:
        r = results[k]
        passing = [x for x in r.candidates if x.c > x.b and x.p_value <= per_test]
        if passing:
            best = max(passing, key=lambda x: (x.agreement or 0.0, -x.p_value))
            i = r.candidates.index(best)
            r.candidates[i] = best = CandidateResult(**{**best.__dict__, "kept": True})
            r.change, r.after = best, best.agreement

    refined_criteria = list(rubric.criteria)
    changelog: list[str] = []
    for k, r in enumerate(results):
        if r.change is None:
            continue
        refined_criteria = _replace_leaf(refined_criteria, k, r.change.criterion)
        changelog.append(
            f"{r.name}: {r.change.kind}; held-out agreement {r.before:.3f} -> {r.after:.3f} "
            f"(n={r.heldout_n}, {r.change.c} fixed, {r.change.b} broken, McNemar exact "
            f"p={r.change.p_value:.3g} <= {per_test:.3g})"
        )
    judge_name = str(getattr(the_judge, "name", judge))
    item_key = [str(dataset.items[i].id or f"items[{i}]") for i in range(len(dataset.items))]
    refined = rubric
    if changelog:
        version = bump_minor(rubric.version)
        log_entry = {"version": version, "judge": judge_name, "seed": seed, "changes": changelog}
        history = list(rubric.metadata.get("changelog", []))
        refined = rubric.model_copy(
            update={
                "criteria": refined_criteria,
                "version": version,
                "metadata": {**rubric.metadata, "changelog": [*history, log_entry]},
            }
        )
    say(f"{grading.calls} judge calls to grade; {tests} candidate(s) tested")
    return RefineResult(
        original=rubric,
        rubric=refined,
        criteria=results,
        judge=judge_name,
        seed=seed,
        alpha=alpha,
        tests=tests,
        propose_ids=[item_key[i] for i in propose],
        heldout_ids=[item_key[i] for i in heldout],
        changelog=changelog,
    )
