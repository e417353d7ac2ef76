"""Read the local model's intermediate hidden states in the pass that decides.

A probe on a middle layer separates right answers from wrong ones better than one on
the last layer, and the submission's tokens averaged over (pooled) add what the one
position where the judge decides does not carry (measured on RiceChem and LLM-Rubric,
docs/trust.md). llama-cpp-python exposes only the last layer, so this module uses
llama.cpp's own hook for intermediate tensors: the context parameter ``cb_eval``
(``ggml_backend_sched_eval_callback``; llama.cpp's ``eval-callback`` and ``imatrix``
tools use it). The scheduler asks the callback about every tensor of the graph; we
claim only the layer outputs we want (``l_out-<layer>``, float32, one row per token of
the batch), and copy them as they are computed: no second evaluation, and nothing is
claimed when no request reads them. No library offers this for llama-cpp-python, so the
few ctypes calls below are written by hand.

What a judgment's features hold is described in ``rubricjudge._features``.
"""

from __future__ import annotations

import ctypes
import hashlib
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._features import DECISION_LAYERS, POOL_LAYERS, RESEARCH_BLOCKS

__all__ = ["Capture", "install_capture"]


def _scaled(layer: int, n_layers: int) -> int:
    """``layer`` of a 28-block model mapped onto a model of ``n_layers`` blocks."""
    return min(n_layers - 1, round(layer * n_layers / 28))


def _lib_path(llama_cpp_module: Any, stem: str) -> Path | None:
    base = Path(llama_cpp_module.__file__).parent / "lib"
    for name in (f"lib{stem}.so", f"lib{stem}.dylib", f"{stem}.dll"):
        if (base / name).exists():
            return base / name
    return None


@dataclass
class Capture:
    """The callback's state: which tensors to copy, and where the copies go.

    ``want`` is empty while no request reads hidden states: the callback then claims
    nothing and llama.cpp computes the graph in one piece, as without it.
    """

    n_embd: int
    n_layers: int
    names: dict[bytes, tuple[bool, bool, int]]  # tensor -> (at decision, pooled, layer)
    ggml: Any
    want: set[bytes] = field(default_factory=set)
    first_pos: int = 0  # the position of the batch's first token
    span: tuple[int, int] = (0, 0)  # positions pooled over
    sums: dict[int, np.ndarray] = field(default_factory=dict)
    counts: dict[int, int] = field(default_factory=dict)
    last: dict[int, np.ndarray] = field(default_factory=dict)
    pools: OrderedDict[bytes, dict[int, np.ndarray]] = field(default_factory=OrderedDict)
    callback: Any = None
    blocks: tuple[str, ...] = RESEARCH_BLOCKS

    def on_tensor(self, tensor: int, ask: bool) -> bool:
        if ask and not self.want:  # the common case, asked of every node: answer at once
            return False
        name = self.ggml.ggml_get_name(tensor)
        if ask:
            return bool(name in self.want)
        kind_layer = self.names.get(name)
        if kind_layer is None:
            return True
        n = int(self.ggml.ggml_nelements(tensor))
        rows = n // self.n_embd
        buf = np.empty(n, dtype=np.float32)
        self.ggml.ggml_backend_tensor_get(tensor, buf.ctypes.data, 0, n * 4)
        mat = buf.reshape(rows, self.n_embd)
        at_decision, pooled, layer = kind_layer
        if at_decision:
            self.last[layer] = mat[-1].copy()
        lo, hi = self.span
        a, b = max(lo - self.first_pos, 0), min(hi - self.first_pos, rows)
        if pooled and b > a:
            self.sums[layer] = self.sums.get(layer, 0) + mat[a:b].astype(np.float64).sum(axis=0)
            self.counts[layer] = self.counts.get(layer, 0) + (b - a)
        return True

    def configure(self, n_embd: int, n_layers: int, blocks: tuple[str, ...]) -> None:
        """Name the tensors to read for ``blocks`` of a model of ``n_layers`` x ``n_embd``."""
        self.n_embd, self.n_layers, self.blocks = n_embd, n_layers, blocks
        self.names = {}
        decision = [x for x in DECISION_LAYERS if f"d{x}" in blocks]
        pooled = [x for x in POOL_LAYERS if f"s{x}" in blocks]
        for layer in sorted({*decision, *pooled}):
            # a layer both read at the decision and pooled is one tensor with both uses
            key = f"l_out-{_scaled(layer, n_layers)}".encode()
            self.names[key] = (layer in decision, layer in pooled, layer)

    def pooling(self) -> bool:
        """Whether any block averages over the submission (``hidden_blocks: all``)."""
        return any(p for _, p, _ in self.names.values())

    def tensor_names(self, pooled: bool) -> set[bytes]:
        """The tensors to claim while pooling a span (True) or reading a decision."""
        return {n for n, (d, p, _) in self.names.items() if (p if pooled else d)}

    def pooled_key(self, tokens: Sequence[int], span: tuple[int, int]) -> bytes:
        """A key for the pooled states of ``tokens[span]`` in the context of what precedes."""
        h = hashlib.sha256(np.asarray(tokens[: span[1]], dtype=np.int64).tobytes())
        h.update(f"{span[0]}:{span[1]}".encode())
        return h.digest()

    def remember(self, key: bytes, pooled: dict[int, np.ndarray]) -> None:
        self.pools[key] = pooled
        self.pools.move_to_end(key)
        while len(self.pools) > 64:
            self.pools.popitem(last=False)


def install_capture(llama_cpp_module: Any, params: Any) -> Capture:
    """Set ``params.cb_eval`` (a ``llama_context_params``) to a capturing callback.

    The returned :class:`Capture` must live as long as the context (it holds the
    callback that C calls); :meth:`Capture.configure` tells it the model's size once
    the model is loaded (the context's parameters are made before).
    """
    path = _lib_path(llama_cpp_module, "ggml-base")
    ggml = ctypes.CDLL(str(path)) if path is not None else ctypes.CDLL(None)
    ggml.ggml_get_name.restype = ctypes.c_char_p
    ggml.ggml_get_name.argtypes = [ctypes.c_void_p]
    ggml.ggml_nelements.restype = ctypes.c_int64
    ggml.ggml_nelements.argtypes = [ctypes.c_void_p]
    ggml.ggml_backend_tensor_get.restype = None
    ggml.ggml_backend_tensor_get.argtypes = [
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.c_size_t,
        ctypes.c_size_t,
    ]
    cap = Capture(n_embd=0, n_layers=0, names={}, ggml=ggml)

    def hook(tensor: int, ask: bool, _user: int) -> bool:
        try:
            return cap.on_tensor(tensor, ask)
        except Exception:  # pragma: no cover - never let an exception cross into C
            return True

    cap.callback = llama_cpp_module.llama_cpp.ggml_backend_sched_eval_callback(hook)
    params.cb_eval = cap.callback
    params.cb_eval_user_data = None
    return cap
