"""A judge made from any ``generate_fn(system_prompt, user_prompt)``, sync or async.

The function may return a string (parsed and repaired: code fences, text around
the object, trailing commas), a pydantic model, a dataclass or a dict, so the
functions written for the ``rubric`` package work unchanged. A function with a
``media`` parameter is given the submission's images and documents
(``MediaPart``s) as ``media=``; one without reads text only, and a request that
holds images fails for it (a judge failure, never a verdict made without seeing).
A sync function runs in a worker thread so it cannot stall the event loop; an
async one is awaited under the config's timeout.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import inspect
import json
import time
from collections.abc import Callable, Mapping
from typing import Any

from .._errors import JudgeError
from ._base import JudgeConfig, JudgeRequest, JudgeResponse
from ._parse import parse_json_reply

__all__ = ["CallableJudge"]


def _takes_media(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` has a ``media`` parameter (the images and documents are passed then)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):  # a builtin without a signature
        return False
    return "media" in params


def _is_async(fn: Callable[..., Any]) -> bool:
    call = getattr(fn, "__call__", None)  # noqa: B004 - async callable objects
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(call)


def _to_object(value: Any) -> tuple[dict[str, Any], str]:
    """The reply as ``(data, raw_text)``.

    Raises:
        JudgeError: category ``parse`` when nothing object-like came back.
    """
    if isinstance(value, str):
        try:
            return parse_json_reply(value), value
        except ValueError as e:
            raise JudgeError(str(e), category="parse", raw_text=value) from None
    dump = getattr(value, "model_dump", None)
    if callable(dump):  # a pydantic model
        data = dump(mode="json")
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        data = dataclasses.asdict(value)
    elif isinstance(value, Mapping):
        data = dict(value)
    else:
        raise JudgeError(
            f"generate_fn returned {type(value).__name__} {value!r:.80}; return a string, "
            "a dict or a pydantic model",
            category="parse",
            raw_text=repr(value),
        )
    if not isinstance(data, dict):
        raise JudgeError(f"generate_fn's reply {data!r:.80} is not an object", category="parse")
    return data, json.dumps(data, ensure_ascii=False, default=str)


class CallableJudge:
    """Wraps ``generate_fn(system_prompt, user_prompt) -> str | dict | BaseModel``."""

    def __init__(
        self,
        generate_fn: Callable[[str, str], Any],
        config: JudgeConfig | None = None,
        *,
        name: str | None = None,
    ) -> None:
        if not callable(generate_fn):
            raise TypeError(f"generate_fn {generate_fn!r} is not callable")
        self.generate_fn = generate_fn
        self.config = config or JudgeConfig()
        fn_name = getattr(generate_fn, "__name__", None) or type(generate_fn).__name__
        self._name = name or f"callable/{fn_name}"
        self._async = _is_async(generate_fn)
        self._sees_media = _takes_media(generate_fn)

    @property
    def name(self) -> str:
        """``callable/<function name>`` unless named."""
        return self._name

    async def _call(self, request: JudgeRequest) -> Any:
        fn: Callable[..., Any] = self.generate_fn
        if request.media and not self._sees_media:
            raise JudgeError(
                f"{self.name} reads text only and this submission holds images or documents; "
                "give the function a 'media' parameter to receive them",
                category="bad_request",
            )
        if self._sees_media:
            fn = functools.partial(fn, media=request.media)
        if self._async:
            return await asyncio.wait_for(fn(request.system, request.user), self.config.timeout_s)
        result = await asyncio.to_thread(fn, request.system, request.user)
        if inspect.isawaitable(result):  # a sync wrapper that hands back a coroutine
            result = await asyncio.wait_for(result, self.config.timeout_s)
        return result

    async def judge(self, request: JudgeRequest) -> JudgeResponse:
        """Call the function and read its reply.

        Raises:
            JudgeError: ``timeout`` (async only), ``function`` when it raised, ``parse``
                when its reply holds no object.
        """
        start = time.perf_counter()
        try:
            value = await self._call(request)
        except JudgeError:
            raise
        except TimeoutError:
            raise JudgeError(
                f"{self.name} took longer than {self.config.timeout_s} s", category="timeout"
            ) from None
        except Exception as e:
            raise JudgeError(
                f"{self.name} raised {type(e).__name__}: {e}", category="function"
            ) from e
        data, raw = _to_object(value)
        return JudgeResponse(
            data=data,
            raw_text=raw,
            latency_s=time.perf_counter() - start,
            model=self.name,
        )
