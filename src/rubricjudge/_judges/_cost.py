"""The USD cost of a judge call: user prices first, then the ``genai-prices`` table.

User prices (``JudgeConfig.prices``) are USD per million tokens with the keys
``input``, ``output`` and optionally ``cached_input``. Without them the maintained
``genai-prices`` table is asked (the ``rubricjudge[prices]`` extra). A model neither
knows is priced ``None`` (unknown), never 0.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from .._errors import ConfigError
from .._model._reports import TokenUsage
from ._spec import split_spec

__all__ = ["BATCH_DISCOUNT", "PRICE_KEYS", "check_prices", "cost_of", "estimate_cost"]

PRICE_KEYS = frozenset({"input", "output", "cached_input"})
BATCH_DISCOUNT = 0.5
"""What a provider batch API charges, as a share of the listed price (OpenAI and
Anthropic both bill batches at half price)."""

_UNKNOWN: set[tuple[str | None, str, str | None]] = set()
_UNKNOWN_LOCK = threading.Lock()


def check_prices(prices: Mapping[str, float] | None) -> None:
    """Reject a price table with unknown keys or negative values.

    Raises:
        ConfigError: naming the bad key or value and the accepted keys.
    """
    if prices is None:
        return
    for key, value in prices.items():
        if key not in PRICE_KEYS:
            raise ConfigError(
                f"prices[{key!r}] is not a price key; use 'input' and 'output' "
                "(and optionally 'cached_input'), in USD per million tokens"
            )
        if not isinstance(value, int | float) or value < 0:
            raise ConfigError(f"prices[{key!r}] = {value!r} must be a number >= 0 (USD/1M tokens)")
    if "input" not in prices or "output" not in prices:
        raise ConfigError(
            f"prices {dict(prices)!r} needs both 'input' and 'output' (USD/1M tokens)"
        )


def _from_user(prices: Mapping[str, float], usage: TokenUsage) -> float:
    cached = usage.cache_read_input_tokens
    cached_rate = prices.get("cached_input", prices["input"])
    fresh = max(0, usage.prompt_tokens - cached)
    dollars = fresh * prices["input"] + cached * cached_rate
    dollars += usage.completion_tokens * prices["output"]
    return dollars / 1_000_000


def _from_table(
    provider: str | None, model: str, api_url: str | None, usage: TokenUsage
) -> float | None:
    ref = (provider, model, api_url)
    if ref in _UNKNOWN:
        return None
    if api_url is not None and _on_this_machine(api_url):
        # the table knows providers by their public URLs: a server on this machine is
        # none of them (and loading the table costs a process about 50 ms)
        with _UNKNOWN_LOCK:
            _UNKNOWN.add(ref)
        return None
    try:
        from genai_prices import Usage, calc_price
    except ImportError:
        return None
    cache_read = usage.cache_read_input_tokens
    cache_write = usage.cache_creation_input_tokens
    counts = {
        "input_tokens": max(usage.prompt_tokens, cache_read + cache_write),
        "output_tokens": usage.completion_tokens,
    }
    if cache_read:
        counts["cache_read_tokens"] = cache_read
    if cache_write:
        counts["cache_write_tokens"] = cache_write
    try:
        if api_url is not None:
            calc = calc_price(Usage(**counts), model, provider_api_url=api_url)
        else:
            calc = calc_price(Usage(**counts), model, provider_id=provider)
    except (LookupError, ValueError):
        with _UNKNOWN_LOCK:
            _UNKNOWN.add(ref)
        return None
    return float(calc.total_price)


def _on_this_machine(url: str) -> bool:
    from urllib.parse import urlsplit

    from ._http_sessions import is_loopback

    try:
        host = urlsplit(url).hostname
    except ValueError:
        return False
    return host is not None and is_loopback(host)


def cost_of(
    usage: TokenUsage | None,
    *,
    provider: str | None,
    model: str,
    api_url: str | None = None,
    prices: Mapping[str, float] | None = None,
) -> float | None:
    """USD for ``usage`` on ``model``; None when usage or the price is unknown.

    ``api_url`` (a custom base URL) picks the provider by URL; a server the table
    does not know (a local one, say) is unknown unless ``prices`` are given.
    """
    if usage is None:
        return None
    if prices is not None:
        return _from_user(prices, usage)
    return _from_table(provider, model, api_url, usage)


def estimate_cost(spec: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """Dollars a dry run expects for a judge spec's tokens, or None when the price is unknown."""
    prefix, model = split_spec(spec)
    if prefix in ("fake", "local"):
        return 0.0
    if not model:
        return None
    try:
        from genai_prices import Usage, calc_price

        price = calc_price(
            Usage(input_tokens=prompt_tokens, output_tokens=completion_tokens),
            model_ref=model,
            provider_id=prefix,
        )
        return float(price.total_price)
    except Exception:  # unknown model, provider or missing extra: unknown, never 0
        return None
