"""Importing Ray lazily, and connecting to (or starting) a Ray instance."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Any

from .._errors import ConfigError, missing_extra

__all__ = ["connect", "forwarded_env", "import_ray", "judge_backends"]

# what any judge may need: where the response cache and model live, TLS, proxies
_ALWAYS = (
    "RUBRICJUDGE_CACHE_DIR",
    "RUBRICATE_CACHE_DIR",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "https_proxy",
    "http_proxy",
    "all_proxy",
    "no_proxy",
)
_BY_BACKEND: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
}
# LiteLLM reads each provider's own variables: keys, base URLs, API versions, clouds
_LITELLM = re.compile(
    r"[A-Z0-9_]+_(API_KEY|API_BASE|BASE_URL|API_VERSION)|AWS_[A-Z_]+|AZURE_[A-Z_]+|"
    r"VERTEXAI_[A-Z_]+|GOOGLE_APPLICATION_CREDENTIALS"
)


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


def judge_backends(spec: Any) -> set[str]:
    """The backends (``openai``, ``anthropic``, ``litellm``, ``local``...) a grader spec uses."""
    names: list[Any] = [spec.judge, spec.options.get("escalate_to")]
    names += [getattr(j, "judge", j) for j in spec.judges or ()]
    return {n.split("/", 1)[0] for n in names if isinstance(n, str)} or {"local"}


def forwarded_env(backends: Iterable[str], extra: Iterable[str] = ()) -> dict[str, str]:
    """The driver's variables that judges of ``backends`` read, and the ``extra`` names.

    Only what judging needs goes to the workers: ``OPENAI_*`` keys and base URL for
    ``openai/`` judges, ``ANTHROPIC_*`` for ``anthropic/``, the providers' keys for
    ``litellm/``, the cache directory, TLS and proxy settings for all. Nothing else of
    the driver's environment (a server token, a registry URL with its password)
    leaves it.
    """
    backends = set(backends)
    names = set(_ALWAYS) | set(extra)
    for b in backends:
        names.update(_BY_BACKEND.get(b, ()))
    env = os.environ
    out = {k: env[k] for k in names if k in env}
    if "litellm" in backends:
        out.update({k: v for k, v in env.items() if _LITELLM.fullmatch(k)})
    return out
