"""``LLMConfig``: autorubric's way of naming a grader's model, accepted as it is.

``CriterionGrader(llm_config=LLMConfig(model="openai/gpt-4.1-mini"))`` is the
same grader as ``CriterionGrader("openai/gpt-4.1-mini")``; the other fields map
onto the judge options of :class:`~rubricjudge.JudgeConfig`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["LLMConfig"]


@dataclass(frozen=True)
class LLMConfig:
    """A judge model and its call options (autorubric's ``LLMConfig``).

    Args:
        model: a judge spec (``"openai/gpt-4.1-mini"``, ``"anthropic/..."``, ``"local"``).
        temperature, max_tokens, seed, timeout, max_retries: as in ``JudgeConfig``
            (``timeout`` is ``timeout_s``).
        api_key: the key (else the provider's environment variable).
        base_url: an OpenAI-compatible server's URL (``api_base`` is accepted too), or a
            list of them: a fleet of servers of one model.
        cache: the response cache setting (True, False or a file).
        extra_params: more request parameters, passed through.
    """

    model: str
    temperature: float | None = 0.0
    max_tokens: int | None = None
    seed: int | None = None
    timeout: float = 60.0
    max_retries: int = 4
    api_key: str | None = field(default=None, repr=False)
    base_url: str | list[str] | None = None
    api_base: str | None = None
    cache: bool | str = True
    extra_params: dict[str, Any] = field(default_factory=dict)

    def judge_options(self) -> dict[str, Any]:
        """The options ``get_judge`` takes for this configuration."""
        options: dict[str, Any] = {
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "timeout_s": self.timeout,
            "max_retries": self.max_retries,
            "cache": self.cache,
        }
        if self.api_key is not None:
            options["api_key"] = self.api_key
        url = self.base_url or self.api_base
        if url is not None:
            options["base_url"] = url
        if self.extra_params:
            options["extra_params"] = dict(self.extra_params)
        return options
