"""The blocks of a judge's features: which hidden states a probe can read, and where.

The local judge's ``JudgeResponse.features`` is float16 numbers laid out in blocks of
the model's width, in the order of :data:`BLOCKS`:

* ``final``: the last hidden state (after the final norm) where the decision is read;
  probes fitted before the other blocks existed read only this one;
* ``d<layer>``: the residual stream after block ``<layer>`` (0-based, of a 28-block
  model; other depths are scaled) at the decision token;
* ``s<layer>``: the same, averaged over the submission's tokens.

Features of a single block (older runs and caches) are a ``final`` block alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["BLOCKS", "DECISION_LAYERS", "POOL_LAYERS", "block_values"]

DECISION_LAYERS: tuple[int, ...] = (8, 12, 14, 16, 18, 20, 22, 24)
"""Blocks whose output at the decision token is read (Qwen2.5-1.5B has 28, 0-based)."""
POOL_LAYERS: tuple[int, ...] = (8, 12, 16, 20, 24)
"""Blocks whose output is averaged over the submission's tokens."""
BLOCKS: tuple[str, ...] = (
    ("final",) + tuple(f"d{x}" for x in DECISION_LAYERS) + tuple(f"s{x}" for x in POOL_LAYERS)
)
"""Every block, in the order the features store them."""


def block_values(features: bytes, names: Sequence[str], width: int | None = None) -> Any:
    """The numbers of blocks ``names`` of ``features``, concatenated (float32 numpy).

    ``width`` is the model's width when known; otherwise it follows from the size
    (one block: ``final`` alone; else every block of :data:`BLOCKS`).

    Raises:
        ValueError: ``features`` lack a block in ``names`` (judged by an older version).
    """
    import numpy as np

    v = np.frombuffer(features, dtype="<f2")
    if width is None:
        width = (
            v.size if v.size % len(BLOCKS) or v.size < 2 * len(BLOCKS) else v.size // len(BLOCKS)
        )
    have = ("final",) if v.size == width else BLOCKS
    if v.size != width * len(have):
        raise ValueError(f"features of {v.size} numbers are not blocks of {width}")
    parts = []
    for name in names:
        if name not in have:
            raise ValueError(
                f"the features hold no {name!r} block (they hold {', '.join(have)}): they "
                "were judged by an older version; judge the answers again"
            )
        i = have.index(name)
        parts.append(v[i * width : (i + 1) * width])
    out = np.concatenate(parts).astype(np.float32)
    return out
