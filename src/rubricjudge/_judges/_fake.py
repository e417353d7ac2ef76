"""A scripted judge for tests and dry runs, registered like the real ones (``"fake"``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .._errors import JudgeError
from .._model._reports import TokenUsage
from ._base import JudgeRequest, JudgeResponse
from ._parse import parse_json_reply

__all__ = ["FakeJudge", "fake_reply_for_schema"]

Reply = Mapping[str, Any] | str | BaseException | JudgeResponse | Callable[[JudgeRequest], Any]


def fake_reply_for_schema(schema: Mapping[str, Any]) -> Any:
    """A valid, boring value for ``schema``: first enum value, minimum, empty text."""
    if "enum" in schema:
        return list(schema["enum"])[0]
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return fake_reply_for_schema(schema[key][0])
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = kind[0]
    if kind == "object":
        props = schema.get("properties", {})
        return {k: fake_reply_for_schema(v) for k, v in props.items()}
    if kind == "array":
        n = int(schema.get("minItems", 0))
        return [fake_reply_for_schema(schema.get("items", {})) for _ in range(n)]
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return "fake"


class FakeJudge:
    """Replays scripted replies in order, then a default.

    A reply may be a dict (the parsed object), a string (raw text, parsed like a
    real reply), a :class:`JudgeResponse` (returned as it is: to script token
    probabilities, say), an exception (raised: use :class:`JudgeError`), or a
    callable ``(request) -> reply``. With no script, every reply is
    :func:`fake_reply_for_schema` of the request's schema. ``requests`` records
    what was asked.
    """

    def __init__(
        self,
        replies: Iterable[Reply] | None = None,
        *,
        default: Reply | None = None,
        name: str = "fake",
        tokens_per_call: int = 0,
    ) -> None:
        self._replies = list(replies or [])
        self._default = default
        self._name = name
        self._tokens = tokens_per_call
        self.requests: list[JudgeRequest] = []

    @property
    def name(self) -> str:
        """The judge's id."""
        return self._name

    async def judge(self, request: JudgeRequest) -> JudgeResponse:
        """Return the next scripted reply for ``request``."""
        self.requests.append(request)
        reply: Any = self._replies.pop(0) if self._replies else self._default
        if reply is None:
            reply = fake_reply_for_schema(request.schema)
        if callable(reply) and not isinstance(reply, BaseException):
            reply = reply(request)
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, JudgeResponse):
            return reply
        if isinstance(reply, str):
            try:
                data = parse_json_reply(reply)
            except ValueError as e:
                raise JudgeError(str(e), category="parse", raw_text=reply) from None
            raw = reply
        else:
            data = dict(reply)
            raw = json.dumps(data)
        usage = TokenUsage(
            prompt_tokens=self._tokens, completion_tokens=0, total_tokens=self._tokens
        )
        return JudgeResponse(data=data, raw_text=raw, usage=usage, cost=0.0, model=self._name)
