"""Judge specs as text, parsed here and nowhere else.

A spec is ``PREFIX/MODEL`` (``openai/gpt-4.1-mini``, ``anthropic/claude-sonnet-4-5``)
or a bare prefix (``local``, ``fake``). An ensemble on the command line is a list of
specs separated by commas or spaces, each optionally ``SPEC=WEIGHT``.
"""

from __future__ import annotations

from collections.abc import Iterable

from .._errors import ConfigError

__all__ = ["split_spec", "weighted_specs"]


def split_spec(spec: str) -> tuple[str, str]:
    """Return (backend prefix, model) of a judge spec; the model is "" for a bare prefix."""
    prefix, _, model = spec.strip().partition("/")
    return prefix, model


def weighted_specs(
    chunks: Iterable[str], *, option: str = "--judges"
) -> list[tuple[str, float | None]]:
    """Return (spec, weight or None) for every spec of an ensemble list.

    Raises:
        ConfigError: a weight that is not a number (the message names ``option``).
    """
    specs: list[tuple[str, float | None]] = []
    for chunk in chunks:
        for spec in filter(None, (s.strip() for s in chunk.split(","))):
            name, sep, weight = spec.rpartition("=")
            if not sep:
                specs.append((spec, None))
                continue
            try:
                specs.append((name, float(weight)))
            except ValueError:
                raise ConfigError(
                    f"{option}: weight {weight!r} of {name!r} is not a number"
                ) from None
    return specs
