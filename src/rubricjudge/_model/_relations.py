"""Relations between criteria: exclusive groups, implications and gates.

A rubric's ``relations`` say how its binary leaf criteria depend on one another:

* ``exclusive: [a, b, ...]``: at most one of them is MET (levels of one idea, such as a
  full and a partial explanation);
* ``implies: {when: b, then: a}``: ``b`` is MET only if ``a`` is MET.

A criterion's ``gate`` (see :class:`~rubricjudge._model._criterion.Gate`) is not a
relation between criteria but a rule on the score: while the gate is UNMET the score
is at most the gate's ``cap`` (0 by default: nothing else counts).

**Decided together.** Criteria joined by relations (directly or through others) form a
related set. When the judge gave probabilities, the verdicts of a related set are the
most probable assignment that satisfies the relations, the judge's per-criterion
probabilities taken as independent: the assignment maximising ``sum(log P(verdict_i))``.
When the independent verdicts already satisfy the relations they are that assignment,
so nothing changes; otherwise the least costly change is made and recorded (the
report's ``relation`` record keeps the criterion's own verdict and the probability of
MET that was used; ``probabilities`` stay the judge's own). Assignments are enumerated:
a related set may hold at most :data:`MAX_RELATED` criteria (2**12 = 4,096 assignments
of a few additions each, well under a millisecond), which rubric validation enforces.

A criterion whose judge gave no probabilities, or whose verdict a later step set
against them (an evidence check's downgrade, a stronger judge's answer), counts its
verdict as near certain (``1 - 1e-9``), so the fewest verdicts change; ties go to the
assignment that gives less credit (the conservative reading), then by the names. A
criterion that failed (a judge error), is CANNOT_ASSESS or is judged turn by turn with a
mean credit is left as it is, and the relations that involve it are not enforced on it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from itertools import product
from typing import TYPE_CHECKING

from pydantic import BaseModel, model_validator

from ._criterion import STRICT, Criterion, CriterionVerdict

if TYPE_CHECKING:
    from ._reports import CriterionReport
    from ._rubric import Rubric
    from ._scoring import ScoringPolicy

__all__ = [
    "MAX_RELATED",
    "Implication",
    "Relation",
    "check_relations",
    "closed_gate_cap",
    "decide_related",
    "gate_failure",
    "related_sets",
]

MAX_RELATED = 12
"""The most criteria one related set may hold (their assignments are enumerated)."""

_CERTAIN = 1.0 - 1e-9  # the probability a verdict without probabilities counts as
_FLOOR = 1e-12  # probabilities are kept off 0 and 1 so a log is defined


class Implication(BaseModel):
    """``when`` is MET only if ``then`` is MET (names or ids of binary leaf criteria)."""

    model_config = STRICT

    when: str
    then: str


class Relation(BaseModel):
    """One relation between criteria: an exclusive group or an implication."""

    model_config = STRICT

    exclusive: list[str] | None = None
    implies: Implication | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> Relation:
        if (self.exclusive is None) == (self.implies is None):
            raise ValueError(
                "a relation is either 'exclusive: [a, b, ...]' or 'implies: {when: b, then: a}'; "
                "give exactly one of them"
            )
        if self.exclusive is not None:
            if len(self.exclusive) < 2:
                raise ValueError("an exclusive group needs at least two criteria; list them")
            if len(set(self.exclusive)) != len(self.exclusive):
                raise ValueError(
                    f"exclusive group {self.exclusive!r} names a criterion twice; list each once"
                )
        elif self.implies is not None and self.implies.when == self.implies.then:
            raise ValueError(
                f"{self.implies.when!r} implies itself; an implication joins two criteria"
            )
        return self

    @property
    def names(self) -> list[str]:
        """The criteria this relation joins."""
        if self.exclusive is not None:
            return list(self.exclusive)
        assert self.implies is not None
        return [self.implies.when, self.implies.then]

    def holds(self, met: Mapping[str, bool]) -> bool:
        """Whether an assignment satisfies this relation; names missing from it are free."""
        if self.exclusive is not None:
            return sum(1 for n in self.exclusive if met.get(n, False)) <= 1
        assert self.implies is not None
        when, then = self.implies.when, self.implies.then
        if when not in met or then not in met:
            return True
        return not met[when] or met[then]

    def describe(self) -> str:
        """The relation in words, for reports and lint."""
        if self.exclusive is not None:
            return "exclusive: " + ", ".join(self.exclusive)
        assert self.implies is not None
        return f"{self.implies.when} implies {self.implies.then}"


# -- validation --------------------------------------------------------------------
def related_sets(relations: Sequence[Relation]) -> list[list[str]]:
    """The sets of criteria joined by relations (directly or through others), each sorted."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for rel in relations:
        first, *rest = rel.names
        for other in rest:
            parent[find(other)] = find(first)
    groups: dict[str, list[str]] = {}
    for name in parent:
        groups.setdefault(find(name), []).append(name)
    return [sorted(g) for g in groups.values()]


def _valid_assignments(
    names: Sequence[str], relations: Sequence[Relation]
) -> list[tuple[bool, ...]]:
    return [
        bits
        for bits in product((False, True), repeat=len(names))
        if all(r.holds(dict(zip(names, bits, strict=True))) for r in relations)
    ]


def _cycle(relations: Sequence[Relation]) -> list[str] | None:
    edges: dict[str, list[str]] = {}
    for rel in relations:
        if rel.implies is not None:
            edges.setdefault(rel.implies.when, []).append(rel.implies.then)
    state: dict[str, int] = {}  # 1 on the path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in edges.get(node, []):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found is not None:
                    return found
        path.pop()
        state[node] = 2
        return None

    for start in list(edges):
        if start not in state:
            found = visit(start)
            if found is not None:
                return found
    return None


def _every(criteria: Iterable[Criterion]) -> Iterable[Criterion]:
    for c in criteria:
        yield c
        yield from _every(c.subcriteria or [])


def check_relations(criteria: Sequence[Criterion], relations: Sequence[Relation]) -> None:
    """Check a rubric's relations; raise ValueError saying what is wrong and how to fix it."""
    if not relations:
        return
    every = {c.key: c for c in _every(criteria) if c.key is not None}
    known = ", ".join(repr(k) for k in every) or "none (give criteria a name)"
    for i, rel in enumerate(relations):
        for name in rel.names:
            c = every.get(name)
            if c is None:
                raise ValueError(
                    f"relations[{i}] ({rel.describe()}): no criterion is named {name!r}; "
                    f"the named criteria are {known}"
                )
            if not c.is_leaf:
                raise ValueError(
                    f"relations[{i}] ({rel.describe()}): {name!r} has subcriteria; relations "
                    "join leaf criteria, so relate its subcriteria instead"
                )
            if not c.is_binary:
                raise ValueError(
                    f"relations[{i}] ({rel.describe()}): {name!r} has options or a scale; "
                    "relations join MET/UNMET criteria (the options of one criterion already "
                    "exclude one another)"
                )
    cycle = _cycle(relations)
    if cycle is not None:
        raise ValueError(
            "the implications form a cycle ("
            + " implies ".join(cycle)
            + "); criteria that imply one another are one criterion: merge them or drop one "
            "implication"
        )
    for names in related_sets(relations):
        if len(names) > MAX_RELATED:
            raise ValueError(
                f"{len(names)} criteria are related to one another "
                f"({', '.join(names)}); at most {MAX_RELATED} can be, since their verdicts are "
                "decided together by trying every assignment. Split the relations into smaller "
                "groups"
            )
        mine = [r for r in relations if set(r.names) <= set(names)]
        valid = _valid_assignments(names, mine)
        for k, name in enumerate(names):
            if not any(bits[k] for bits in valid):
                said = "; ".join(r.describe() for r in mine if name in r.names)
                raise ValueError(
                    f"{name!r} can never be MET under the relations ({said}); "
                    "remove the relation that contradicts the others"
                )


def mixed_sign_relations(rubric: Rubric) -> list[tuple[int, Relation, list[str]]]:
    """(index, relation, penalty names) of relations joining rewards and penalties."""
    every = {c.key: c for c in rubric.iter_all() if c.key is not None}
    out = []
    for i, rel in enumerate(rubric.relations or []):
        weights = [every[n].weight for n in rel.names if n in every]
        if any(w < 0 for w in weights) and any(w > 0 for w in weights):
            out.append((i, rel, [n for n in rel.names if n in every and every[n].weight < 0]))
    return out


# -- the joint decision --------------------------------------------------------------
def p_met(report: CriterionReport) -> float | None:
    """The probability of MET the joint decision uses, or None when the judge gave none.

    A calibrated probability when a calibration applied, else the judge's probabilities
    of MET and UNMET renormalised over the two.
    """
    if report.calibration is not None and report.calibration.p_calibrated is not None:
        return report.calibration.p_calibrated
    probs = report.probabilities
    if probs:
        met, unmet = probs.get("MET", 0.0), probs.get("UNMET", 0.0)
        if met + unmet > 0:
            return met / (met + unmet)
    return None


def _decidable(report: CriterionReport) -> bool:
    return (
        report.error is None
        and report.verdict in (CriterionVerdict.MET, CriterionVerdict.UNMET)
        and report.turn_credit is None
        and report.criterion.is_binary
    )


def _used(p: float | None, met: bool) -> float | None:
    """``p`` when the verdict follows it, else None (the verdict then counts as certain).

    A later step may set a verdict against the judge's probability: an evidence check's
    downgrade, a stronger judge's answer.
    """
    if p is None or (p >= 0.5 if met else p <= 0.5):
        return p
    return None


def _log(p: float) -> float:
    return math.log(min(max(p, _FLOOR), 1.0 - _FLOOR))


def decide_related(rubric: Rubric, leaves: Sequence[CriterionReport]) -> list[CriterionReport]:
    """Leaf reports (in rubric leaf order) with related verdicts decided together.

    Reports outside every related set, and all reports of a rubric without relations,
    are returned as they are.
    """
    relations = rubric.relations or []
    if not relations:
        return list(leaves)
    out = list(leaves)
    where = {r.criterion.key: i for i, r in enumerate(out) if r.criterion.key is not None}
    for group in related_sets(relations):
        names = [n for n in group if n in where and _decidable(out[where[n]])]
        if not names:
            continue
        mine = [r for r in relations if set(r.names) & set(names)]
        reports = [out[where[n]] for n in names]
        said = [r.verdict is CriterionVerdict.MET for r in reports]
        probs = [_used(p_met(r), s) for r, s in zip(reports, said, strict=True)]
        if all(r.holds(dict(zip(names, said, strict=True))) for r in mine):
            chosen = tuple(said)  # the most probable assignment already: nothing to decide
            for k, name in enumerate(names):
                out[where[name]] = _record(reports[k], chosen[k], probs[k], mine, name)
            continue
        p = [
            q if q is not None else (_CERTAIN if s else 1.0 - _CERTAIN)
            for q, s in zip(probs, said, strict=True)
        ]
        weights = [r.criterion.weight for r in reports]
        best: tuple[float, float] | None = None
        chosen = tuple(said)
        for bits in _valid_assignments(names, mine):
            logp = math.fsum(_log(q if b else 1.0 - q) for q, b in zip(p, bits, strict=True))
            credit = math.fsum(w for w, b in zip(weights, bits, strict=True) if b)
            key = (logp, -credit)
            if best is None or key > best:
                best, chosen = key, bits
        for k, name in enumerate(names):
            out[where[name]] = _record(reports[k], chosen[k], probs[k], mine, name)
    return out


def _record(
    report: CriterionReport, met: bool, prob: float | None, relations: Iterable[Relation], name: str
) -> CriterionReport:
    from ._reports import RelationRecord

    verdict = CriterionVerdict.MET if met else CriterionVerdict.UNMET
    changed = verdict is not report.verdict
    record = RelationRecord(
        raw_verdict=report.verdict,
        p_met=prob,
        changed=changed,
        relations=[r.describe() for r in relations if name in r.names],
    )
    update: dict[str, object] = {"relation": record}
    if changed:
        update["verdict"] = verdict
        if prob is not None:  # the probability of the verdict that now counts
            update["confidence"] = prob if met else 1.0 - prob
        shown = "?" if prob is None else f"{prob:.2f}"
        note = (
            f"decided with the relations ({'; '.join(record.relations)}): {verdict.value}, "
            f"where the judge's own answer was {report.verdict.value if report.verdict else '-'} "
            f"(P(MET) {shown})"
        )
        update["notes"] = f"{report.notes}; {note}" if report.notes else note
    return report.model_copy(update=update)


# -- gates ---------------------------------------------------------------------------
def gate_failure(leaves: Iterable[CriterionReport]) -> str | None:
    """Why the item has no score because a gate criterion could not be judged, or None."""
    for r in leaves:
        if r.criterion.gate is not None and r.error is not None:
            name = r.criterion.key or r.criterion.requirement[:40]
            return (
                f"the gate criterion {name!r} could not be judged, so nothing is scored: {r.error}"
            )
    return None


def closed_gate_cap(leaves: Iterable[CriterionReport], policy: ScoringPolicy) -> float | None:
    """The lowest cap among the gates that are closed (UNMET), or None when none is.

    CANNOT_ASSESS closes a gate when the policy counts it as no credit (``zero``,
    ``fail``); under ``skip`` and ``partial`` it leaves the gate open.
    """
    from ._scoring import CannotAssessStrategy

    caps = []
    for r in leaves:
        gate = r.criterion.gate
        if gate is None:
            continue
        if r.verdict is CriterionVerdict.UNMET or (
            r.verdict is CriterionVerdict.CANNOT_ASSESS
            and policy.cannot_assess in (CannotAssessStrategy.ZERO, CannotAssessStrategy.FAIL)
        ):
            caps.append(gate.cap)
    return min(caps) if caps else None


def raw_at(cap: float, reports: Sequence[CriterionReport], policy: ScoringPolicy) -> float:
    """The unnormalised score whose normalised score is ``cap``, for these reports."""
    from ._scoring import report_value

    weights = [r.criterion.weight for r in reports if report_value(r, policy) is not None]
    if policy.compat == "dataknobs":  # score = sum(w * s) / sum(w), over every criterion
        total = math.fsum(r.criterion.weight for r in reports)
        return cap * total
    positive = math.fsum(w for w in weights if w > 0)
    if positive > 0:
        return cap * positive
    absolute = math.fsum(abs(w) for w in weights)
    return (cap - 1.0) * absolute if absolute > 0 else 0.0


def gated(criteria: Iterable[Criterion]) -> list[Criterion]:
    """The gate criteria among ``criteria``."""
    return [c for c in criteria if c.gate is not None]
