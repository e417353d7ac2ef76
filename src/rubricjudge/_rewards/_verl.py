"""veRL's reward-function conventions over a :class:`RewardEngine`.

veRL calls a custom reward function by keyword: per rollout
``compute_score(data_source=, solution_str=, ground_truth=, extra_info=, **reward_kwargs)``
(its reward loop awaits an ``async def`` one, concurrently over the batch), and
its ``batch`` reward manager calls
``compute_score(data_sources=, solution_strs=, ground_truths=, extra_infos=, **reward_kwargs)``.
``reward_kwargs`` come from veRL's config (``custom_reward_function.reward_kwargs``):
they choose the rubric, the judge and the failure policy. A key not listed here is
an error (a misspelt ``rubric`` must not pass unnoticed), except the ones veRL
itself adds.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from .._aio import run_sync
from .._errors import ConfigError
from ._engine import RewardEngine, engine

__all__ = ["compute_score", "compute_score_async", "compute_score_batch"]

_OURS = (
    "rubric",
    "judge",
    "base_url",
    "on_failure",
    "neutral_reward",
    "query_key",
    "calibration",
    "verdict_method",
    "reasons",
)
_VERLS = ("reward_router_address", "reward_model_tokenizer")  # added by veRL; not for us


def _settings(kwargs: Mapping[str, Any]) -> tuple[RewardEngine, str]:
    unknown = [k for k in kwargs if k not in _OURS and k not in _VERLS]
    if unknown:
        near = difflib.get_close_matches(unknown[0], _OURS, n=1)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        raise ConfigError(
            f"unknown reward_kwargs key {unknown[0]!r}{hint} (the keys are "
            + ", ".join(_OURS)
            + "; see docs/rl-training.md#verl)"
        )
    eng = engine(
        rubric=kwargs.get("rubric"),
        judge=kwargs.get("judge", "local"),
        base_url=kwargs.get("base_url"),
        on_failure=kwargs.get("on_failure", "error"),
        neutral_reward=kwargs.get("neutral_reward", 0.5),
        flag="reward_kwargs.on_failure",
        calibration=kwargs.get("calibration"),
        verdict_method=kwargs.get("verdict_method", "auto"),
        reasons=bool(kwargs.get("reasons", False)),
    )
    return eng, str(kwargs.get("query_key", "question"))


def _text(value: Any) -> str | None:
    """A ground truth as text (veRL's may be a string, a number, a list or a dict)."""
    if value is None or isinstance(value, str):
        return value or None
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def _query(extra_info: Any, key: str) -> str | None:
    if isinstance(extra_info, Mapping):
        value = extra_info.get(key)
        return value if isinstance(value, str) and value else None
    return None


async def compute_score_async(
    data_source: Any = None,
    solution_str: str = "",
    ground_truth: Any = None,
    extra_info: Any = None,
    **reward_kwargs: Any,
) -> dict[str, float]:
    """The per-rollout reward, async (veRL's reward loop awaits it); see :func:`compute_score`."""
    eng, query_key = _settings(reward_kwargs)
    return await eng.score(
        solution_str,
        query=_query(extra_info, query_key),
        reference=_text(ground_truth),
        source=None if data_source is None else str(data_source),
    )


def compute_score(
    data_source: Any = None,
    solution_str: str = "",
    ground_truth: Any = None,
    extra_info: Any = None,
    **reward_kwargs: Any,
) -> dict[str, float]:
    """The per-rollout reward for veRL: ``{"score": reward, "rubric_failed": 0 or 1, ...}``.

    ``reward_kwargs``: ``rubric`` (a file, or a mapping data source -> file),
    ``judge`` (spec, default ``local``), ``base_url``, ``on_failure`` (``error``,
    the default, or ``neutral``), ``neutral_reward`` (0.5) and ``query_key`` (the
    ``extra_info`` key holding the question, default ``question``).
    """
    return run_sync(
        compute_score_async(data_source, solution_str, ground_truth, extra_info, **reward_kwargs)
    )


def compute_score_batch(
    data_sources: Sequence[Any] = (),
    solution_strs: Sequence[str] = (),
    ground_truths: Sequence[Any] = (),
    extra_infos: Sequence[Any] | None = None,
    **reward_kwargs: Any,
) -> list[dict[str, float]]:
    """The function of veRL's ``batch`` reward manager: one result per rollout, in order."""
    eng, query_key = _settings(reward_kwargs)
    n = len(solution_strs)
    infos = list(extra_infos) if extra_infos is not None else [None] * n
    work = eng.score_batch(
        list(solution_strs),
        queries=[_query(info, query_key) for info in infos],
        references=[_text(g) for g in ground_truths] if len(ground_truths) else None,
        sources=[None if s is None else str(s) for s in data_sources]
        if len(data_sources)
        else None,
    )
    return run_sync(work)
