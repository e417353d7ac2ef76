"""Read a decision's probabilities from the local model's logits.

A request with a :class:`~rubricjudge._judges._base.Decision` asks for one reply
field (``verdict``, ``option``) to be decided from the model's probabilities
over the allowed values rather than by sampling text. The reply is laid out as
the schema orders its properties:

* decision first (``{"verdict": ...}`` or ``{"verdict": ..., "reason": ...}``):
  the prompt plus ``{"verdict":`` is evaluated once and each value's
  continuation is scored; any later fields (a reason) are then generated,
  grammar-constrained, after the chosen value;
* decision after other fields (``{"reason": ..., "verdict": ...}``): those
  fields are generated first, then the value is scored after them.

A value's probability is the product of the token probabilities of its
continuation (`` "MET"}``) up to the token where it differs from every other
value; tokens all values share cancel when the probabilities are renormalised
over the allowed values, so each decision costs one extra evaluation of a
token or two on top of the prompt, usually none.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._errors import ConfigError
from .._features import encode
from ._base import Decision
from ._local_states import Capture

__all__ = ["Decided", "decision_layout", "remainder_grammar", "value_probabilities"]


@dataclass(frozen=True)
class Decided:
    """The chosen value, every value's probability, and the reply text so far."""

    value: str | int
    probabilities: dict[str, float]
    hidden: bytes | None = None
    """The model's last hidden state (after the final norm) where the value is read,
    float16 little-endian; only when asked for (``hidden=True``)."""


def decision_layout(schema: Mapping[str, Any], decision: Decision) -> tuple[list[str], int]:
    """The schema's property names in order and the decision key's position.

    Raises:
        ConfigError: the schema is not an object holding ``decision.key``.
    """
    props = list((schema.get("properties") or {}).keys())
    if decision.key not in props:
        raise ConfigError(
            f"the decision key {decision.key!r} is not a property of the reply schema "
            f"(properties: {props})"
        )
    if not decision.values:
        raise ConfigError(f"the decision {decision.key!r} lists no values")
    return props, props.index(decision.key)


@dataclass
class _Read:
    """What to read besides the logits: the hidden states a probe uses (features)."""

    capture: Capture | None
    span: tuple[int, int] | None
    out: list[bytes]


def _next_logprobs(llm: Any, tokens: Sequence[int], read: _Read | None = None) -> np.ndarray:
    """Log-probabilities of the token after ``tokens``, reusing the KV cache.

    With ``read``, the features at the last token are appended to ``read.out``:
    llama.cpp computes the last hidden state in the same pass when embeddings are
    switched on for that one token, and the intermediate layers through the capture
    hook (``_local_states``), so a probe costs no second evaluation. The submission's
    pooled states come from the pass that evaluated its tokens (kept per submission,
    since later criteria reuse its KV cache); if that pass is gone, its tokens are
    evaluated again.
    """
    n_past = int(llm.n_tokens)
    common = 0
    if n_past:
        prev = llm.input_ids[:n_past]
        limit = min(n_past, len(tokens) - 1)  # at least one token is evaluated for fresh logits
        while common < limit and prev[common] == tokens[common]:
            common += 1
    cap = read.capture if read is not None else None
    span = read.span if read is not None else None
    pool_key, pooled = b"", None
    if cap is not None and span is not None and span[1] < len(tokens) and cap.pooling():
        pool_key = cap.pooled_key(tokens, span)
        pooled = cap.pools.get(pool_key)
        if pooled is None:
            common = min(common, span[0])
    llm.n_tokens = common
    rest = list(tokens[common:])
    # the last token is always evaluated on its own, so the logits are the same to the
    # last bit whether or not its hidden state is read (llama.cpp's sums differ slightly
    # with the shape of the batch)
    if len(rest) > 1:
        if cap is not None and span is not None and pooled is None:
            pooled = _eval_pooling(llm, cap, rest[:-1], span)
            cap.remember(pool_key, pooled)
        else:
            llm.eval(rest[:-1])
    if read is None:
        llm.eval(rest[-1:])
    else:
        final = _eval_with_hidden(llm, rest[-1:], cap)
        read.out.append(_pack(final, cap, pooled))
    logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),)).astype(np.float64)
    top = float(logits.max())
    return logits - (top + float(np.log(np.exp(logits - top).sum())))


def _eval_pooling(
    llm: Any, cap: Capture, tokens: list[int], span: tuple[int, int]
) -> dict[int, np.ndarray]:
    """Evaluate ``tokens`` batch by batch, averaging the pooled layers over ``span``."""
    cap.want, cap.span, cap.sums, cap.counts = cap.tensor_names(pooled=True), span, {}, {}
    try:
        step = int(llm.n_batch)
        for i in range(0, len(tokens), step):
            cap.first_pos = int(llm.n_tokens)
            llm.eval(tokens[i : i + step])
    finally:
        cap.want, cap.span = set(), (0, 0)
    return {layer: (total / max(cap.counts.get(layer, 1), 1)) for layer, total in cap.sums.items()}


def _pack(final: np.ndarray, cap: Capture | None, pooled: dict[int, np.ndarray] | None) -> bytes:
    """The features of one decision: the blocks the judge reads (``_features``).

    Without the capture hook only ``final`` is there, without a header (what older
    probes read); a submission that was not pooled has zeros in its ``s`` blocks.
    """
    if cap is None or not cap.names:
        return final.astype("<f2").tobytes()
    zero = np.zeros(cap.n_embd, dtype=np.float32)
    out: dict[str, np.ndarray] = {}
    for name in cap.blocks:
        if name == "final":
            out[name] = final
        elif name.startswith("d"):
            out[name] = cap.last.get(int(name[1:]), zero)
        else:
            out[name] = (pooled or {}).get(int(name[1:]), zero)
    return encode(out)


def _eval_with_hidden(llm: Any, tokens: list[int], cap: Capture | None = None) -> np.ndarray:
    """Evaluate one token; return the last hidden state there (and capture the others)."""
    from llama_cpp import llama_cpp as lib

    ctx = llm._ctx.ctx
    lib.llama_set_embeddings(ctx, True)
    if cap is not None:
        cap.last = {}
        cap.want = cap.tensor_names(pooled=False)
    try:
        llm.eval(tokens)
        ptr = lib.llama_get_embeddings_ith(ctx, -1)
        if not ptr:  # pragma: no cover - llama.cpp gives one for every output token
            raise ConfigError("llama.cpp returned no hidden state for the decision")
        vec: np.ndarray = np.ctypeslib.as_array(ptr, shape=(int(llm.n_embd()),)).copy()
        return vec
    finally:
        lib.llama_set_embeddings(ctx, False)
        if cap is not None:
            cap.want = set()


def _score(
    llm: Any, base: list[int], conts: list[list[int]], read: _Read | None = None
) -> list[float]:
    """Relative log-probability of each continuation after ``base`` (see module doc).

    With ``hidden``, the hidden state where the values first part (the token whose
    logits decide between them, after any tokens they all share) is appended to it.
    """
    out = [0.0] * len(conts)
    stack: list[tuple[int, list[int], float]] = [(0, list(range(len(conts))), 0.0)]
    while stack:
        depth, group, acc = stack.pop()
        if len(group) == 1:
            out[group[0]] = acc
            continue
        branches: dict[int, list[int]] = {}
        for i in group:
            if depth >= len(conts[i]):  # pragma: no cover - continuations end in a terminator
                raise ConfigError("two decision values tokenise identically")
            branches.setdefault(conts[i][depth], []).append(i)
        if len(branches) == 1:  # shared by the whole group: cancels on renormalising
            stack.append((depth + 1, group, acc))
            continue
        first = read is not None and not read.out and len(group) == len(conts)
        lp = _next_logprobs(llm, base + conts[group[0]][:depth], read if first else None)
        for tok, members in branches.items():
            stack.append((depth + 1, members, acc + float(lp[tok])))
    return out


def value_probabilities(
    llm: Any,
    base: list[int],
    decision: Decision,
    *,
    last: bool,
    temperature: float,
    seed: int | None,
    hidden: bool = False,
    capture: Capture | None = None,
    span: tuple[int, int] | None = None,
) -> Decided:
    """Score every allowed value after ``base`` and choose one.

    ``last`` says whether the decision closes the object (``}``) or more fields
    follow (``,``). At temperature 0 the most probable value is chosen (the first
    on a tie); otherwise one is drawn from the probabilities sharpened or
    flattened by the temperature, seeded by ``seed`` when given.
    """
    end = "}" if last else ","
    conts = [
        list(llm.tokenize((" " + json.dumps(v) + end).encode("utf-8"), add_bos=False))
        for v in decision.values
    ]
    # the hidden state is always read where the decision is made (a copy of n_embd
    # numbers): with embeddings on, llama.cpp's logits differ in the last bits, so
    # reading it every time keeps the probabilities the same whether it is kept or not
    read = _Read(capture=capture if hidden else None, span=span, out=[])
    scores = np.array(_score(llm, base, conts, read))
    got = read.out
    probs = np.exp(scores - scores.max())
    probs /= probs.sum()
    if temperature <= 0:
        pick = int(np.argmax(probs))
    else:
        weights = np.exp((scores - scores.max()) / temperature)
        weights /= weights.sum()
        pick = random.Random(seed).choices(range(len(probs)), weights=weights.tolist())[0]
    return Decided(
        value=decision.values[pick],
        probabilities={str(v): float(p) for v, p in zip(decision.values, probs, strict=True)},
        hidden=got[0] if hidden and got else None,
    )


def _gbnf_literal(text: str) -> str:
    return json.dumps(text)  # GBNF string literals use JSON's escapes


_CHAR = r'[^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})'


def remainder_grammar(schema: Mapping[str, Any], keys: Sequence[str]) -> str:
    """GBNF for the rest of a reply after its decision: ``, "k": value ... }``.

    Supports the field kinds our reply schemas use after a decision: strings
    (``maxLength`` bounds them), string enums and integers.

    Raises:
        ConfigError: a field of another kind.
    """
    props = schema.get("properties") or {}
    parts = []
    for k in keys:
        spec = props[k]
        if "enum" in spec:
            value = "(" + " | ".join(_gbnf_literal(json.dumps(v)) for v in spec["enum"]) + ")"
        elif spec.get("type") == "string":
            limit = int(spec.get("maxLength", 400))
            value = f'"\\"" char{{0,{limit}}} "\\""'
        elif spec.get("type") == "integer":
            value = '"-"? [0-9]{1,9}'
        else:
            raise ConfigError(
                f"cannot generate a {spec.get('type')!r} field {k!r} after a decision"
            )
        parts.append(f'"," space {_gbnf_literal(json.dumps(k))} space ":" space {value}')
    body = " ".join(parts) if parts else ""
    return f'root ::= {body} space "}}"\nspace ::= " "?\nchar ::= {_CHAR}\n'
