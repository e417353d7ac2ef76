"""The server's log: uvicorn's, with tokens kept out, and a line per reward batch.

A trainer that cannot send headers puts the token in the URL (``?token=``);
uvicorn's access log prints each request's path with its query, so a filter on
the access handler replaces the token's value with ``***`` before it is written.
"""

from __future__ import annotations

import copy
import logging
import re
from typing import Any

__all__ = ["RedactToken", "log_config", "redact"]

_TOKEN = re.compile(r"([?&]token=)[^&#\s]*")


def redact(path: str) -> str:
    """``path`` with the value of any ``token=`` query parameter hidden."""
    return _TOKEN.sub(r"\1***", path)


class RedactToken(logging.Filter):
    """Hides ``token=`` values in uvicorn's access lines (their third argument is the path)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's path; never drop the record."""
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            record.args = (*args[:2], redact(args[2]), *args[3:])
        return True


def log_config() -> dict[str, Any]:
    """Uvicorn's logging configuration, plus the token filter and ``rubricjudge.server``."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["redact"] = {"()": f"{__name__}.RedactToken"}
    config["handlers"]["access"]["filters"] = ["redact"]
    config["loggers"]["rubricjudge.server"] = {
        "handlers": ["default"],
        "level": "INFO",
        "propagate": False,
    }
    return config
