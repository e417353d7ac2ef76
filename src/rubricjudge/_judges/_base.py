"""The judge contract: one request type, one response type, one async method.

A judge takes a system prompt, a user prompt and the JSON Schema of the object it
must return, and returns that object parsed, with usage, cost, latency and the raw
text. A judge that fails raises :class:`~rubricjudge.JudgeError` (with a category);
graders record that as data, never as a verdict.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, Protocol, runtime_checkable

from .._conversations._media_part import MediaPart
from .._model._reports import TokenUsage

__all__ = [
    "Decision",
    "Judge",
    "JudgeConfig",
    "JudgeRequest",
    "JudgeResponse",
    "MediaBudget",
    "with_changes",
]


@dataclass(frozen=True)
class Decision:
    """The reply field that carries the decision, and the values it may take.

    A request that names one asks the backend for the probability of each value
    (read from its token probabilities, renormalised over ``values``); backends
    that cannot see token probabilities ignore it. ``values`` are the JSON values
    allowed in ``key`` (strings such as ``"MET"``, or option numbers).
    """

    key: str
    values: tuple[str | int, ...]


@dataclass(frozen=True)
class JudgeRequest:
    """One structured question to a judge.

    ``user[:shared_prefix_chars]`` is shared by the calls about one submission (the
    system prompt and the submission block come first), so providers' prompt caches
    and the local KV cache can reuse it. ``tags`` are for logs and fakes only; they
    never change the answer and are not part of any cache key. ``features`` asks
    the backend for its hidden state where it decides (``decision``), for learned
    probes (:mod:`rubricjudge._calibration`); backends that have none ignore it.
    ``media`` are the submission's images and documents (its text shows ``[image N]``
    where each stood); judges that see them send them after the shared prefix, and
    judges that read text only refuse the request (a judge failure, never a verdict).
    """

    system: str
    user: str
    schema: Mapping[str, Any]
    schema_name: str = "judgment"
    shared_prefix_chars: int = 0
    temperature: float | None = None
    seed: int | None = None
    max_tokens: int | None = None
    decision: Decision | None = None
    tags: Mapping[str, Any] = field(default_factory=dict)
    features: bool = False
    media: tuple[MediaPart, ...] = ()
    pool_chars: tuple[int, int] | None = None
    """The characters of ``user`` that hold the submission: a backend that gives
    ``features`` may average its hidden states over them (the local judge does)."""


@dataclass(frozen=True)
class JudgeResponse:
    """A judge's parsed answer and what it cost.

    ``cost`` is in USD and None when the price is unknown (never a silent 0).
    ``cached`` is True for a replay from the response cache, which costs nothing new.
    ``probabilities`` maps each of the request's ``decision.values`` (as text) to its
    probability, from the model's token probabilities renormalised over those
    values; None when the backend exposes none or the request named no decision.
    ``latency_s`` is the call's own time (attempts and back-off included);
    ``queue_s`` is the time it waited before it could start: for a provider's
    concurrency or rate limits, or for the local model's thread.
    ``features`` is the model's hidden state at the decision when the request asked
    for it and the backend has one (the local judge): float16, little-endian.
    """

    data: dict[str, Any]
    raw_text: str
    usage: TokenUsage | None = None
    cost: float | None = None
    latency_s: float = 0.0
    queue_s: float = 0.0
    cached: bool = False
    reasoning: str | None = None
    model: str = ""
    attempts: int = 1
    probabilities: Mapping[str, float] | None = None
    features: bytes | None = None


_RESPONSE_FIELDS = frozenset(f.name for f in fields(JudgeResponse))


def with_changes(response: JudgeResponse, **changes: Any) -> JudgeResponse:
    """``dataclasses.replace(response, **changes)``, at a tenth of its cost.

    ``replace`` calls ``__init__`` with every field by keyword (about 7 us, once or
    twice per judge call); a :class:`JudgeResponse` has plain fields and no
    ``__post_init__``, so a copy of its ``__dict__`` with ``changes`` over it is the same
    value. Subclasses and unknown names go through ``replace`` (which refuses the latter).
    """
    if type(response) is not JudgeResponse or not changes.keys() <= _RESPONSE_FIELDS:
        return replace(response, **changes)
    new = object.__new__(JudgeResponse)
    new.__dict__.update(response.__dict__)
    new.__dict__.update(changes)
    return new


@runtime_checkable
class Judge(Protocol):
    """What every judge backend implements: one async call."""

    @property
    def name(self) -> str:
        """A stable identifier (the spec string, e.g. ``openai/gpt-4.1-mini``)."""
        ...

    async def judge(self, request: JudgeRequest) -> JudgeResponse:
        """Answer ``request`` with an object matching ``request.schema``.

        Raises:
            JudgeError: after the last attempt failed; ``category`` says why.
        """
        ...


@dataclass(frozen=True)
class MediaBudget:
    """What one request may carry: pixels and bytes per image, parts and bytes in all.

    None means no bound. The default (``_media.DEFAULT_BUDGET``) follows what the large
    providers take without resizing themselves: about 1568x1568 pixels and 5 MB per
    image, 20 parts and 30 MB a request.
    """

    max_pixels: int | None = 1568 * 1568
    max_image_bytes: int | None = 5 * 1024 * 1024
    max_document_bytes: int | None = 30 * 1024 * 1024
    max_parts: int | None = 20
    max_total_bytes: int | None = 30 * 1024 * 1024


@dataclass(frozen=True)
class JudgeConfig:
    """Options every judge spec accepts; a backend ignores those it cannot use.

    API keys are read from the environment unless ``api_key`` is given, and are
    never written to caches, logs or results. ``base_url`` may list several
    servers of one model (a list, or URLs separated by commas) for ``openai/``
    judges: an endpoint fleet. ``media_budget`` bounds the images and documents one
    request carries (None: the default :data:`~rubricjudge._judges._media.DEFAULT_BUDGET`).
    """

    temperature: float | None = 0.0
    seed: int | None = None
    max_tokens: int | None = None
    timeout_s: float = 60.0
    base_url: str | Sequence[str] | None = None
    api_key: str | None = field(default=None, repr=False)
    extra_headers: Mapping[str, str] = field(default_factory=dict)
    extra_params: Mapping[str, Any] = field(default_factory=dict)
    reasoning: Mapping[str, Any] | None = None
    max_retries: int = 4
    max_parse_retries: int = 2
    concurrency: int | None = None
    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None
    cache: bool | str = True
    refresh_cache: bool = False
    prices: Mapping[str, float] | None = None
    media_budget: MediaBudget | None = None
