"""One plain record per item, embedded as JSON for the page's item table and item view.

Fields that are empty are left out, so a 10,000-item page stays small; the
page's script treats a missing field as "none".
"""

from __future__ import annotations

from typing import Any

from ._data import RunData, leaves
from ._html import answer_of

__all__ = ["item_rows"]


def _dump(model: Any) -> Any:
    return None if model is None else model.model_dump(mode="json", exclude_none=True)


def _criterion(cr: Any, j: int, gold: str | None, raw: list[dict[str, Any]]) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "key": cr.criterion.key or f"#{j}",
        "req": cr.criterion.requirement,
        "w": cr.criterion.weight,
        "ans": answer_of(cr),
        "human": gold,
        "conf": cr.confidence,
        "probs": cr.probabilities,
        "reason": cr.reason or None,
        "reasoning": cr.reasoning,
        "error": cr.error,
        "cat": cr.error_category,
        "quotes": cr.evidence or None,
        "evidence": _dump(cr.evidence_check),
        "calibration": _dump(cr.calibration),
        "escalation": _dump(cr.escalation),
        "votes": [_dump(v) for v in cr.votes] if cr.votes else None,
        "agree": cr.agreement,
        "call": cr.llm_invocation,
        "raw": raw or None,
        "scope": cr.criterion.scope,
        "turns": [_turn(t) for t in cr.turns] if cr.turns else None,
        "notes": cr.notes or None,
    }
    if cr.error is not None and cr.scale_score is not None:
        rec["policy"] = f"{cr.scale_score.score:g}"  # a fallback's end of the scale
    elif cr.error is not None and (cr.verdict is not None or cr.selection is not None):
        # what the failure policy filled in, shown beside the error, never as the answer
        rec["policy"] = cr.selection.label if cr.selection is not None else cr.verdict.value
    return {k: v for k, v in rec.items() if v is not None}


def _turn(t: Any) -> dict[str, Any]:
    """One assistant turn's verdict on a criterion judged turn by turn."""
    return {
        "turn": t.turn,
        "first": t.first,
        "last": t.last,
        "ans": answer_of(t),
        "reason": t.reason or None,
        "error": t.error,
    }


def _shown(record: Any) -> str | None:
    """What the judges were shown of a conversation, in words (from the report's metadata)."""
    if not isinstance(record, dict):
        return None
    if record.get("error"):
        return f"not shown: {record['error']}"
    text = f"{record.get('tokens', 0):,} of {record.get('full_tokens', 0):,} tokens"
    if record.get("elided_turns") or record.get("shortened_chars"):
        text += (
            f"; {record.get('elided_turns', 0)} turns elided, "
            f"{record.get('shortened_chars', 0):,} characters cut"
        )
    budget = record.get("budget_tokens")
    return text + (
        f" (budget {budget:,}, over budget: {record.get('over_budget')})" if budget else ""
    )


def _gold(truth: Any, j: int) -> str | None:
    if truth is None or j >= len(truth) or truth[j] is None:
        return None
    value = getattr(truth[j], "value", truth[j])
    return str(value)


def item_rows(run: RunData) -> list[dict[str, Any]]:
    """One record per item for the page's table and item view."""
    out = []
    truths: list[Any] = [] if run.dataset is None else [it.ground_truth for it in run.dataset.items]
    for i, r in enumerate(run.reports):
        truth = truths[i] if i < len(truths) else None
        calls = dict(run.calls.get(run.ids[i], {}))
        crits = []
        people = 0
        split = 0
        confs: list[float] = []
        for j, cr in enumerate(leaves(r)):
            gold = _gold(truth, j)
            rec = _criterion(cr, j, gold, calls.pop(cr.criterion.key or "", []))
            said = rec["ans"]
            people += gold is not None and said not in ("error", "–") and said != gold
            split += cr.agreement is not None and cr.agreement < 1.0
            if cr.confidence is not None:
                confs.append(cr.confidence)
            crits.append(rec)
        rest = [c for group in calls.values() for c in group]
        error = run.item_errors[i] if i < len(run.item_errors) else None
        view = run.views[i] if i < len(run.views) else None
        media = run.media[i] if i < len(run.media) else None
        row: dict[str, Any] = {
            "id": run.ids[i],
            "score": None if r is None else r.score,
            "passed": None if r is None else r.passed,
            "errors": 0 if r is None else r.error_count,
            "error": (error or "not graded") if r is None else r.error,
            "people": people if truth is not None else None,
            "split": split,
            "minconf": min(confs) if confs else None,
            "submission": run.submissions[i],
            "conversation": view["messages"] if view is not None else None,
            "media": media or None,
            "crit": crits,
            "calls": rest or None,
        }
        if r is not None:
            row["usage"] = {
                "judge calls": r.judge_calls,
                "cached": r.cached_calls,
                "tokens": r.token_usage.total_tokens if r.token_usage else None,
                "cost": "unknown" if r.completion_cost is None else f"${r.completion_cost:.4f}",
                "conversation shown": _shown(r.metadata.get("conversation")),
            }
        out.append({k: v for k, v in row.items() if v is not None or k in ("score", "passed")})
    return out
