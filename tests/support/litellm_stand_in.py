"""A stand-in for litellm (``acompletion`` and two exception classes), and its replies.

The ``stand_in`` fixture (tests/judges/conftest.py) installs it as ``litellm``, so the
adapter's mapping is tested without the real SDK.
"""

from __future__ import annotations

import importlib.util

HAS_LITELLM = importlib.util.find_spec("litellm") is not None

STAND_IN = """
CALLS = []
SCRIPT = []

class BadRequestError(Exception):
    status_code = 400

class RateLimitError(Exception):
    status_code = 429

async def acompletion(**params):
    CALLS.append(params)
    reply = SCRIPT.pop(0)
    if isinstance(reply, Exception):
        raise reply
    return reply
"""


def reply(content: str, finish: str = "stop") -> dict[str, object]:
    return {
        "model": "gemini-2.0-flash",
        "choices": [{"message": {"content": content}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 4, "total_tokens": 15},
    }
