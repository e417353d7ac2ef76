"""What the page is sent about one item: question, submission, criteria, labels, judge."""

from __future__ import annotations

import math
from typing import Any

from .._datasets._dataset import DataItem
from .._datasets._labels import leaf_names, read_records
from .._model._rubric import Criterion
from .._pages._media_view import media_view
from .._pages._render_page import page_view
from ._file import DatasetFile
from ._judged import Judged
from ._store import item_names

__all__ = ["item_payload", "submission_of"]

_MAX_SCALE_POINTS = 11


def submission_of(item: DataItem) -> Any:
    """The submission as the page draws it: the one place that decides its shape.

    A plain text answer is sent as a string. A conversation (an item with
    ``messages``), or text with the model's thinking, is sent as the report's
    :func:`page_view` data: ``{"kind": "conversation", "messages": [...]}`` with each
    message's number, role, text, tool calls and results, or ``{"kind": "text",
    "text", "thinking"}``. The page's ``renderSubmission`` draws either as text
    (never as HTML).
    """
    view = page_view(item.submission)
    if view["kind"] == "text" and "thinking" not in view:
        return view["text"]
    return view


def _criterion(name: str, c: Criterion) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": name,
        "requirement": c.requirement,
        "options": None,
        "kind": "binary",
        "penalty": c.weight < 0,
    }
    if c.is_multi_choice:
        out["options"] = [o.label for o in c.options or []]
        out["kind"] = "options"
    elif c.scale is not None:
        lo, hi = math.ceil(c.scale.min), math.floor(c.scale.max)
        out["kind"] = "scale"
        if 0 < hi - lo + 1 <= _MAX_SCALE_POINTS:
            out["options"] = [str(v) for v in range(lo, hi + 1)]
    return out


def item_payload(
    file: DatasetFile,
    index: int,
    labeller: str,
    judged: dict[str, Judged] | None,
    *,
    reveal: bool,
) -> dict[str, Any]:
    """The item ``index`` as ``GET /api/next`` sends it (progress is added by the caller).

    ``labels`` are this labeller's own labels on it so far; ``judge`` the judge's
    answers, sent only when ``reveal`` (``--show-judge``, or once the item is labelled).
    """
    item = file.dataset.items[index]
    rubric = file.dataset.get_item_rubric(index)
    names = leaf_names(rubric)
    records = read_records(item.metadata, f"items[{index}]")
    mine = {n: records[n][labeller].label for n in names if labeller in records.get(n, {})}
    out: dict[str, Any] = {
        "item_id": item_names(file)[index],
        "query": file.dataset.get_item_query(index),
        "submission": submission_of(item),
        "criteria": [_criterion(n, c) for n, c in zip(names, rubric.leaves(), strict=True)],
        "labels": mine,
        "media": media_view(getattr(item.submission, "media", ())) or None,
        "judge": None,
    }
    if reveal and judged:
        out["judge"] = {n: judged[n].to_data() for n in names if n in judged}
    return out
