"""Loading a GGUF for the local judge, once per process: threads, chat scaffold, grammars.

A model loads on first use and is shared by every judge that names it (``MODELS``);
loading installs the hook that reads intermediate layers (``_local_states``) and
works around llama-cpp-python's missing ``use_extra_bufts`` argument. What a request
does with the model is ``_local``'s.
"""

from __future__ import annotations

import atexit
import json
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from .._features import PROBE_BLOCKS, RESEARCH_BLOCKS
from ._local_states import Capture, install_capture

__all__ = [
    "CHATML",
    "HIDDEN_BLOCKS",
    "MODELS",
    "MODELS_LOCK",
    "PATCH_LOCK",
    "Model",
    "default_threads",
    "grammar_for",
    "load_model",
    "scaffold",
]

HIDDEN_BLOCKS = {"probe": ("final", *PROBE_BLOCKS), "all": RESEARCH_BLOCKS}
_SYS, _USR = "\x00rubricjudge-system\x00", "\x00rubricjudge-user\x00"
CHATML = (
    "<|im_start|>system\n",
    "<|im_end|>\n<|im_start|>user\n",
    "<|im_end|>\n<|im_start|>assistant\n",
)


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


THREADS_ENV = "RUBRICJUDGE_LOCAL_THREADS"
"""Sets the local judge's default ``n_threads`` (``extra_params`` still wins)."""


def default_threads() -> int:
    """The default ``n_threads``: ``$RUBRICJUDGE_LOCAL_THREADS``, else all cores but one.

    llama.cpp's threads spin at every barrier, so when other work wants a core (our
    own event loop included) one descheduled thread stalls the rest. Measured on two
    busy cores: 17.7 s per judgment with one thread, 122 s with two; 1.24 s against
    3.31 s per criterion beside another job. On two idle cores two threads were faster
    (0.74 s per criterion against 1.28 s, ``benchmarks/local_per_criterion.py
    --threads 1 2``): a machine that does nothing else may set the variable to all its
    cores. The count changes no probability.
    """
    given = os.environ.get(THREADS_ENV, "").strip()
    if not given:
        return max(1, _cores() - 1)
    try:
        n = int(given) if given.isascii() else 0
    except ValueError:
        n = 0
    if n < 1:
        raise ConfigError(
            f"${THREADS_ENV}={given!r}: give the number of threads the local judge may use "
            "(a whole number, 1 or more), or unset it for all cores but one"
        )
    return n


@dataclass
class Model:
    """A loaded model, its prompt scaffold and grammar cache; used on the worker only."""

    llm: Any
    name: str
    scaffold: tuple[str, str, str]
    n_ctx: int
    grammars: dict[str, Any] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    capture: Capture | None = None


MODELS: dict[tuple[Any, ...], Model] = {}
MODELS_LOCK = threading.Lock()
PATCH_LOCK = threading.Lock()


@atexit.register
def _close_models() -> None:
    # Free the models while llama_cpp is still whole: left to interpreter teardown,
    # Llama.__del__ finds its C bindings gone and prints a traceback on every exit.
    with MODELS_LOCK:
        models = list(MODELS.values())
        MODELS.clear()
    for model in models:
        if model.lock.acquire(timeout=60):  # let a running call finish first
            try:
                model.llm.close()
            finally:
                model.lock.release()


def scaffold(llm: Any) -> tuple[str, str, str]:
    """The model's chat template around a system and a user message, split at both."""
    template = llm.metadata.get("tokenizer.chat_template")
    if not template:
        return CHATML
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    try:
        env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
        text = env.from_string(template).render(
            messages=[{"role": "system", "content": _SYS}, {"role": "user", "content": _USR}],
            add_generation_prompt=True,
            bos_token="",
            eos_token="",
        )
    except Exception:  # an exotic template: ChatML is what most chat GGUFs expect
        return CHATML
    head, sep, rest = text.partition(_SYS)
    mid, sep2, tail = rest.partition(_USR)
    if not sep or not sep2 or _SYS in tail or _USR in tail:
        return CHATML
    return head, mid, tail


def load_model(path: Path, opts: Mapping[str, Any]) -> Model:
    import llama_cpp
    from llama_cpp import llama_cpp as lib

    # llama-cpp-python has no argument for llama.cpp's ``use_extra_bufts``; its
    # repacked (AMX) weight buffers segfault on CPUs whose AMX is not usable, so the
    # default parameters are adjusted while this model loads.
    original = lib.llama_model_default_params
    original_ctx = lib.llama_context_default_params
    captures: list[Capture] = []

    def params() -> Any:
        p = original()
        p.use_extra_bufts = bool(opts["use_extra_bufts"])
        return p

    def ctx_params() -> Any:  # the hook that reads intermediate layers (_local_states)
        p = original_ctx()
        captures.append(install_capture(llama_cpp, p))
        return p

    with PATCH_LOCK:
        lib.llama_model_default_params = params
        lib.llama_context_default_params = ctx_params
        try:
            llm = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=int(opts["n_ctx"]),
                n_batch=int(opts["n_batch"]),
                n_threads=int(opts["n_threads"]),
                n_threads_batch=int(opts["n_threads"]),
                verbose=False,
            )
        except Exception as e:
            raise ConfigError(f"cannot load the local model {str(path)!r}: {e}") from e
        finally:
            lib.llama_model_default_params = original
            lib.llama_context_default_params = original_ctx
    capture = captures[-1] if captures else None
    if capture is not None:
        blocks = HIDDEN_BLOCKS[str(opts.get("hidden_blocks", "probe"))]
        capture.configure(int(llm.n_embd()), int(lib.llama_model_n_layer(llm.model)), blocks)
    name = path.name.removesuffix(".gguf")
    return Model(
        llm=llm, name=name, scaffold=scaffold(llm), n_ctx=int(opts["n_ctx"]), capture=capture
    )


def grammar_for(model: Model, schema: Mapping[str, Any]) -> Any:
    from llama_cpp.llama_grammar import JSON_GBNF, LlamaGrammar

    key = json.dumps(schema)  # property order kept: the grammar emits keys in this order
    got = model.grammars.get(key)
    if got is None:
        try:
            got = LlamaGrammar.from_json_schema(key, verbose=False)
        except Exception:  # a schema feature the converter lacks: any JSON, checked later
            got = LlamaGrammar.from_string(JSON_GBNF, verbose=False)
        model.grammars[key] = got
    return got
