"""The blocks of a judge's features: which hidden states a probe can read, and where.

The local judge's ``JudgeResponse.features`` is float16 numbers in blocks of the
model's width, each a named hidden state:

* ``final``: the last hidden state (after the final norm) where the decision is read;
  probes fitted before the other blocks existed read only this one;
* ``d<layer>``: the residual stream after block ``<layer>`` (0-based, of a 28-block
  model; other depths are scaled) at the decision token;
* ``s<layer>``: the same, averaged over the submission's tokens.

Which blocks a judgment carries is written in front of the numbers (``HEADER``, then
the names, comma-separated, then a newline), so a probe finds its blocks by name.
Features with no header are older: one block is ``final`` alone, and 14 blocks are the
layout of :data:`RESEARCH_BLOCKS` in that order (the benchmarks' caches).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "DECISION_LAYERS",
    "HEADER",
    "POOL_LAYERS",
    "PROBE_BLOCKS",
    "RESEARCH_BLOCKS",
    "block_values",
    "blocks_of",
    "encode",
]

DECISION_LAYERS: tuple[int, ...] = (8, 12, 14, 16, 18, 20, 22, 24)
"""Blocks whose output at the decision token can be read (Qwen2.5-1.5B has 28, 0-based)."""
POOL_LAYERS: tuple[int, ...] = (8, 12, 16, 20, 24)
"""Blocks whose output can be averaged over the submission's tokens."""
RESEARCH_BLOCKS: tuple[str, ...] = (
    ("final",) + tuple(f"d{x}" for x in DECISION_LAYERS) + tuple(f"s{x}" for x in POOL_LAYERS)
)
"""Every block the local judge can read (``extra_params={"hidden_blocks": "all"}``)."""
PROBE_BLOCKS: tuple[str, ...] = ("d14", "d18", "d22")
"""The blocks a probe reads by default: three middle layers at the decision token.

Chosen on RiceChem's train split (``benchmarks/probe_layers.py``; docs/trust.md): 10
labelled answers per question, the other judged train answers scored."""
HEADER = b"RJF1:"


def encode(blocks: Mapping[str, Any]) -> bytes:
    """Features holding ``blocks`` (name to a float vector, all of one width)."""
    import numpy as np

    names = ",".join(blocks).encode("ascii")
    body = np.concatenate([np.asarray(v, dtype=np.float32) for v in blocks.values()])
    return HEADER + names + b"\n" + body.astype("<f2").tobytes()


def blocks_of(features: bytes, width: int | None = None) -> tuple[tuple[str, ...], bytes]:
    """The block names ``features`` hold, and their numbers' bytes."""
    if features.startswith(HEADER):
        head, _, body = features[len(HEADER) :].partition(b"\n")
        return tuple(head.decode("ascii").split(",")), body
    n = len(features) // 2
    if width is not None and n == width * len(RESEARCH_BLOCKS) and n != width:
        return RESEARCH_BLOCKS, features
    if width is None and n % len(RESEARCH_BLOCKS) == 0 and n >= 1024 * len(RESEARCH_BLOCKS):
        return RESEARCH_BLOCKS, features
    return ("final",), features


def block_values(features: bytes, names: Sequence[str], width: int | None = None) -> Any:
    """The numbers of blocks ``names`` of ``features``, concatenated (float32 numpy).

    Raises:
        ValueError: ``features`` lack a block in ``names`` (judged by an older version
            or without ``hidden_blocks`` asking for it).
    """
    import numpy as np

    have, body = blocks_of(features, width)
    v = np.frombuffer(body, dtype="<f2")
    if v.size % len(have):
        raise ValueError(f"features of {v.size} numbers are not {len(have)} equal blocks")
    size = v.size // len(have)
    if width is not None and size != width:
        raise ValueError(f"the blocks are {size} numbers wide, not {width}")
    parts = []
    for name in names:
        if name not in have:
            raise ValueError(
                f"the features hold no {name!r} block (they hold {', '.join(have)}): they "
                "were judged by an older version of the judge; judge the answers again"
            )
        i = have.index(name)
        parts.append(v[i * size : (i + 1) * size])
    out = np.concatenate(parts).astype(np.float32)
    return out
