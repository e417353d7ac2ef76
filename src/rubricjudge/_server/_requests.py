"""What every rubricjudge HTTP app does with a request: the bearer token, bounded JSON bodies.

Shared by the scoring server (``serve``) and the labelling page (``label``), so both
check tokens in constant time and refuse an oversized body before reading it whole.
"""

from __future__ import annotations

import hmac
import json
import re
from typing import Any

from .._limits import DataLimitError, json_loads

__all__ = ["HTTPError", "bearer_ok", "read_json"]


class HTTPError(Exception):
    """An error answered as ``{"error": message}`` with a status code."""

    def __init__(self, status: int, message: str, detail: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.detail = detail


def bearer_ok(header: str, token: str | None) -> bool:
    """True when ``header`` (an Authorization value) carries ``token``; always with no token."""
    if token is None:
        return True
    scheme, _, given = header.partition(" ")
    if scheme.lower() != "bearer" or not given:
        return False
    return hmac.compare_digest(given.strip().encode(), token.encode())


async def read_json(request: Any, limit: int) -> Any:
    """The request's JSON body, read at most ``limit`` bytes far.

    Raises:
        HTTPError: 413 over ``limit`` (from Content-Length before reading, or while
            reading), 400 for a bad Content-Length or a body that is not JSON.
    """
    length = request.headers.get("content-length")
    if length is not None:
        if not re.fullmatch(r"[0-9]{1,18}", length):
            raise HTTPError(400, f"Content-Length {length!r} is not a number")
        if int(length) > limit:
            raise HTTPError(413, f"request body is {length} bytes; the limit is {limit}")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise HTTPError(413, f"request body is over the limit of {limit} bytes")
        chunks.append(chunk)
    try:
        return json_loads(b"".join(chunks))
    except DataLimitError as e:
        raise HTTPError(400, f"request body: {e}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise HTTPError(400, f"request body is not valid JSON: {e}") from None
