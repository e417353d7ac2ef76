"""The review flow: artifacts evaluated against every rubric that applies to them.

An artifact is content with a type, a name and the ids of rubrics that apply to
it. Its status moves::

    DRAFT -> PENDING_REVIEW -> IN_REVIEW -> APPROVED
                                         -> NEEDS_REVISION -> DRAFT / PENDING_REVIEW

:meth:`ArtifactStore.submit_for_review` walks that path: it evaluates the content
against each applicable rubric (the artifact's ``rubric_ids``, the rubrics
registered for its type, and ``type_rubrics[type]``), stores the evaluations in
the registry's database, and approves the artifact only when every evaluation
passed. If evaluating raises (a misconfigured rubric), the artifact goes back to
PENDING_REVIEW and the error is raised. Any other move is an
:class:`IllegalTransition`. Every move is logged in ``artifact_events``.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from .._aio import run_sync
from .._errors import ConfigError
from .._graders._mixed import FeedbackMode, evaluate_rubric
from .._methods._functions import FunctionRegistry
from .._methods._run import coerce_policy
from .._model._reports import EvaluationReport
from .._model._scoring import ScoringPolicy
from .._registry._db import Database, Tx
from .._registry._records import RubricVersion
from .._registry._store import RubricRegistry
from ._types import (
    TRANSITIONS,
    Artifact,
    ArtifactEvaluation,
    ArtifactStatus,
    IllegalTransition,
    evaluation_from_row,
)

__all__ = ["Artifact", "ArtifactEvaluation", "ArtifactStatus", "ArtifactStore", "IllegalTransition"]


S = ArtifactStatus


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


class ArtifactStore:
    """Artifacts and their reviews, stored next to the rubrics of ``registry``.

    Args:
        registry: where the rubrics live; artifacts use the same database.
        judge: for rubrics with LLM or llm_decode criteria.
        functions: where ``function_ref`` / ``schema_ref`` are looked up.
        type_rubrics: rubric ids that apply to every artifact of a type.
        feedback: the evaluations' feedback summary mode.
        policy: the scoring policy of the evaluations, or ``"dataknobs"`` to score
            as dataknobs' executor does (see :class:`rubricjudge.ScoringPolicy`).
        db: where artifacts are stored (migrated); the registry's database by default.
    """

    def __init__(
        self,
        registry: RubricRegistry,
        *,
        judge: Any = None,
        functions: FunctionRegistry | Mapping[str, Callable[[Any], Any]] | None = None,
        type_rubrics: Mapping[str, Sequence[str]] | None = None,
        feedback: FeedbackMode = "deterministic",
        policy: ScoringPolicy | str | None = None,
        db: Database | None = None,
    ) -> None:
        self.registry = registry
        self.db = db if db is not None else registry.db
        self.judge = judge
        self.functions = FunctionRegistry.coerce(functions)
        self.type_rubrics = {k: list(v) for k, v in (type_rubrics or {}).items()}
        self.feedback: FeedbackMode = feedback
        self.policy = coerce_policy(policy)

    # -- artifacts ---------------------------------------------------------------------
    def create(
        self,
        type: str,
        name: str,
        content: Any,
        *,
        rubric_ids: Sequence[str] = (),
        metadata: Mapping[str, Any] | None = None,
        id: str | None = None,
    ) -> Artifact:
        """Store a new artifact in DRAFT and return it."""
        aid = id or f"art_{uuid.uuid4().hex[:12]}"
        now = _now()
        params = (
            aid,
            type,
            name,
            _dump(content),
            _dump(list(rubric_ids)),
            S.DRAFT.value,
            _dump(dict(metadata or {})),
            now,
            now,
        )

        def tx_fn(tx: Tx) -> None:
            if tx.execute("SELECT 1 FROM artifacts WHERE id = ?", (aid,)):
                raise ConfigError(f"artifact id {aid!r} exists already; pick another id")
            tx.execute(
                "INSERT INTO artifacts (id, type, name, content, rubric_ids, status, metadata, "
                "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                params,
            )
            self._event(tx, aid, None, S.DRAFT, "created")

        self.db.run(tx_fn)
        return self.get(aid)

    def _event(
        self, tx: Tx, aid: str, old: ArtifactStatus | None, new: ArtifactStatus, note: str
    ) -> None:
        tx.execute(
            "INSERT INTO artifact_events (id, artifact_id, from_status, to_status, at, note) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (uuid.uuid4().hex, aid, old.value if old else None, new.value, _now(), note),
        )

    def get(self, artifact_id: str) -> Artifact:
        """Return the artifact with its stored evaluations (oldest first).

        Raises:
            ConfigError: no such artifact.
        """

        def tx_fn(tx: Tx) -> Artifact:
            rows = tx.execute(
                "SELECT id, type, name, content, rubric_ids, status, created_at, updated_at, "
                "metadata FROM artifacts WHERE id = ?",
                (artifact_id,),
            )
            if not rows:
                raise ConfigError(f"no artifact {artifact_id!r}")
            r = rows[0]
            evals = tx.execute(
                "SELECT id, artifact_id, review_round, rubric_id, rubric_version, rubric_hash, "
                "score, passed, report, evaluated_at FROM artifact_evaluations "
                "WHERE artifact_id = ? ORDER BY review_round, rubric_id",
                (artifact_id,),
            )
            return Artifact(
                id=r[0],
                type=r[1],
                name=r[2],
                content=json.loads(r[3]),
                rubric_ids=json.loads(r[4]),
                status=S(r[5]),
                created_at=r[6],
                updated_at=r[7],
                metadata=json.loads(r[8]),
                evaluations=[evaluation_from_row(e) for e in evals],
            )

        return self.db.run(tx_fn, write=False)

    def history(self, artifact_id: str) -> list[tuple[str | None, str, str, str]]:
        """Return every status change as (from, to, when, note), oldest first."""
        rows = self.db.run(
            lambda tx: tx.execute(
                "SELECT from_status, to_status, at, note FROM artifact_events "
                "WHERE artifact_id = ? "
                "ORDER BY at, id",
                (artifact_id,),
            ),
            write=False,
        )
        return [(r[0], r[1], r[2], r[3]) for r in rows]

    def set_status(
        self, artifact_id: str, status: ArtifactStatus | str, note: str = ""
    ) -> Artifact:
        """Move the artifact to ``status``.

        Raises:
            IllegalTransition: the flow does not allow that move from the current status.
        """
        new = S(status)

        def tx_fn(tx: Tx) -> None:
            rows = tx.execute(
                f"SELECT status FROM artifacts WHERE id = ?{tx.for_update}", (artifact_id,)
            )
            if not rows:
                raise ConfigError(f"no artifact {artifact_id!r}")
            old = S(rows[0][0])
            if new not in TRANSITIONS[old]:
                allowed = ", ".join(s.value for s in sorted(TRANSITIONS[old], key=list(S).index))
                raise IllegalTransition(
                    f"artifact {artifact_id!r} is {old.value}; it cannot move to {new.value} "
                    f"(allowed from {old.value}: {allowed or 'none, it is final'})"
                )
            tx.execute(
                "UPDATE artifacts SET status = ?, updated_at = ? WHERE id = ?",
                (new.value, _now(), artifact_id),
            )
            self._event(tx, artifact_id, old, new, note)

        self.db.run(tx_fn)
        return self.get(artifact_id)

    def update_content(self, artifact_id: str, content: Any) -> Artifact:
        """Replace the content of a DRAFT or NEEDS_REVISION artifact (the latter returns to DRAFT).

        Raises:
            IllegalTransition: the artifact is under review or approved.
        """
        art = self.get(artifact_id)
        if art.status is S.NEEDS_REVISION:
            self.set_status(artifact_id, S.DRAFT, "content revised")
        elif art.status is not S.DRAFT:
            raise IllegalTransition(
                f"artifact {artifact_id!r} is {art.status.value}; only a draft or an artifact "
                "that needs revision can change its content"
            )
        self.db.run(
            lambda tx: tx.execute(
                "UPDATE artifacts SET content = ?, updated_at = ? WHERE id = ?",
                (_dump(content), _now(), artifact_id),
            )
        )
        return self.get(artifact_id)

    # -- review ------------------------------------------------------------------------
    def applicable_rubrics(self, artifact: Artifact) -> list[RubricVersion]:
        """Return the latest version of each rubric that applies to ``artifact``.

        Raises:
            RubricNotFound: a listed rubric id is not in the registry.
        """
        out: dict[str, RubricVersion] = {}
        for rid in [*artifact.rubric_ids, *self.type_rubrics.get(artifact.type, [])]:
            if rid not in out:
                out[rid] = self.registry.get_version(rid)
        for rec in self.registry.list_all(artifact.type):
            out.setdefault(rec.rubric_id, rec)
        return list(out.values())

    async def submit_for_review(self, artifact_id: str) -> list[ArtifactEvaluation]:
        """Evaluate the artifact against every applicable rubric and decide its status.

        Returns:
            The evaluations stored by this review (one per rubric).

        Raises:
            IllegalTransition: the artifact is not a draft or needs-revision artifact.
            ConfigError: no rubric applies, or one has no ``pass_threshold``.
            RubricNotFound: a listed rubric id is not registered.
        """
        art = await asyncio.to_thread(self.get, artifact_id)
        if S.PENDING_REVIEW not in TRANSITIONS[art.status]:
            raise IllegalTransition(
                f"artifact {artifact_id!r} is {art.status.value}; only a draft or an artifact "
                "that needs revision can be submitted for review"
            )
        recs = await asyncio.to_thread(self.applicable_rubrics, art)
        if not recs:
            raise ConfigError(
                f"no rubric applies to artifact {artifact_id!r} (type {art.type!r}); give it "
                "rubric_ids or register a rubric with target_type " + repr(art.type)
            )
        rubrics = [r.rubric for r in recs]
        for rec, rubric in zip(recs, rubrics, strict=True):
            if rubric.pass_threshold is None:
                raise ConfigError(
                    f"rubric {rec.rubric_id!r} {rec.version} has no pass_threshold, so it "
                    "cannot approve anything; set one and update the rubric"
                )
        await asyncio.to_thread(self.set_status, artifact_id, S.PENDING_REVIEW, "submitted")
        await asyncio.to_thread(
            self.set_status, artifact_id, S.IN_REVIEW, f"evaluating against {len(recs)} rubric(s)"
        )
        try:
            reports = await asyncio.gather(
                *(
                    evaluate_rubric(
                        r,
                        art.content,
                        judge=self.judge,
                        functions=self.functions,
                        feedback=self.feedback,
                        policy=self.policy,
                    )
                    for r in rubrics
                )
            )
        except BaseException as e:
            await asyncio.to_thread(
                self.set_status,
                artifact_id,
                S.PENDING_REVIEW,
                f"evaluation failed: {type(e).__name__}: {e}",
            )
            raise
        return await asyncio.to_thread(self._store, artifact_id, recs, list(reports))

    def _store(
        self, artifact_id: str, recs: list[RubricVersion], reports: list[EvaluationReport]
    ) -> list[ArtifactEvaluation]:
        now = _now()

        def tx_fn(tx: Tx) -> list[ArtifactEvaluation]:
            status = tx.execute(
                f"SELECT status FROM artifacts WHERE id = ?{tx.for_update}", (artifact_id,)
            )[0][0]
            if status != S.IN_REVIEW.value:
                raise IllegalTransition(
                    f"artifact {artifact_id!r} left in_review (now {status}) while it was "
                    "being evaluated; its evaluations were not stored"
                )
            rows = tx.execute(
                "SELECT COALESCE(MAX(review_round), 0) FROM artifact_evaluations "
                "WHERE artifact_id = ?",
                (artifact_id,),
            )
            rnd = int(rows[0][0]) + 1
            out = []
            for rec, rep in zip(recs, reports, strict=True):
                ev = ArtifactEvaluation(
                    id=f"eval_{uuid.uuid4().hex[:12]}",
                    artifact_id=artifact_id,
                    review_round=rnd,
                    rubric_id=rec.rubric_id,
                    rubric_version=rec.version,
                    rubric_hash=rec.content_hash,
                    score=rep.score,
                    passed=rep.passed is True,
                    report=rep,
                    evaluated_at=now,
                )
                tx.execute(
                    "INSERT INTO artifact_evaluations (id, artifact_id, review_round, rubric_id, "
                    "rubric_version, rubric_hash, score, passed, report, evaluated_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        ev.id,
                        artifact_id,
                        rnd,
                        ev.rubric_id,
                        ev.rubric_version,
                        ev.rubric_hash,
                        ev.score,
                        int(ev.passed),
                        rep.model_dump_json(exclude_none=True),
                        now,
                    ),
                )
                out.append(ev)
            new = S.APPROVED if all(e.passed for e in out) else S.NEEDS_REVISION
            failed = [e.rubric_id for e in out if not e.passed]
            note = "all evaluations passed" if not failed else f"failed: {', '.join(failed)}"
            tx.execute(
                "UPDATE artifacts SET status = ?, updated_at = ? WHERE id = ?",
                (new.value, now, artifact_id),
            )
            self._event(tx, artifact_id, S.IN_REVIEW, new, note)
            return out

        return self.db.run(tx_fn)

    def submit_for_review_sync(self, artifact_id: str) -> list[ArtifactEvaluation]:
        """Blocking :meth:`submit_for_review`."""
        return run_sync(self.submit_for_review(artifact_id))
