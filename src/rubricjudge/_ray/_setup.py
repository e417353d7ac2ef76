"""Importing Ray lazily, and connecting to (or starting) a Ray instance."""

from __future__ import annotations

import os
from typing import Any

from .._errors import ConfigError, missing_extra

__all__ = ["FORWARDED_ENV", "connect", "forwarded_env", "import_ray"]

FORWARDED_ENV = ("RUBRICJUDGE_", "RUBRICATE_", "OPENAI_", "ANTHROPIC_")
"""Prefixes of the driver's environment variables its Ray workers get as well."""


def import_ray() -> Any:
    """Import ``ray``, or say which extra installs it.

    Raises:
        ConfigError: Ray is not installed.
    """
    try:
        import ray
    except ImportError as e:
        raise missing_extra("ray", f"the Ray integration needs Ray ({e})") from None
    return ray


def connect(address: str | None = None, *, num_cpus: int | None = None) -> Any:
    """Connect to the Ray cluster at ``address``, or start a local instance; return ``ray``.

    A Ray already initialised in this process (``ray.init()`` called by the caller) is
    used as it is.

    Raises:
        ConfigError: Ray is not installed, or ``address`` cannot be reached.
    """
    ray = import_ray()
    if ray.is_initialized():
        return ray
    options: dict[str, Any] = {"include_dashboard": False, "logging_level": "WARNING"}
    if address is not None:
        options["address"] = address
    elif num_cpus is not None:
        options["num_cpus"] = num_cpus
    try:
        ray.init(**options)
    except (ConnectionError, RuntimeError, ValueError) as e:
        where = f"the Ray cluster at {address!r}" if address else "a local Ray instance"
        raise ConfigError(f"cannot connect to {where}: {e}") from None
    return ray


def forwarded_env() -> dict[str, str]:
    """The driver's settings and API keys that workers need to judge as it would."""
    return {k: v for k, v in os.environ.items() if k.startswith(FORWARDED_ENV)}
