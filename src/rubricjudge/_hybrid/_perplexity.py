"""Perplexity of the submission under the local model, from its log-probabilities.

The local GGUF model (the ``local`` extra; found by ``rubricjudge._judges._model_files``
unless a path is given) is loaded with llama-cpp-python and ``logits_all=True``, so
one forward pass gives the log-probability of every token::

    perplexity = exp(-(1/N) * sum_i log p(t_i | t_<i))

over the N tokens of the submission, conditioned on a beginning-of-text token
(and on the query first, with ``config.condition_on_query: true``). A submission
longer than the context window is cut to fit; ``details.truncated`` says so.

Mapping onto [0, 1], lower perplexity being better::

    value = clamp(1 - ln(perplexity) / ln(ceiling), 0, 1)

with ``config.ceiling`` (default 1000): perplexity 1 gives 1.0, ``ceiling`` and
above give 0.0, and ``sqrt(ceiling)`` gives 0.5. ``raw`` keeps the perplexity.

The model is loaded once per path and process (a separate llama.cpp instance
from the local judge's, since this one keeps every position's logits) and shared
by every metric instance; calls run on the local judge's worker thread, so all
llama.cpp work of the process happens one call at a time, off the event loop.
"""

from __future__ import annotations

import atexit
import math
import os
import threading
from typing import Any

from .._errors import missing_extra
from ._base import MetricError, MetricInput, MetricValue

__all__ = ["DEFAULT_CEILING", "Perplexity", "default_model_path", "perplexity_to_unit"]

DEFAULT_CEILING = 1000.0
_MODELS: dict[str, tuple[Any, threading.Lock]] = {}
_MODELS_LOCK = threading.Lock()


@atexit.register
def _close_models() -> None:
    # free the models while llama_cpp is still whole (see the local judge's twin)
    with _MODELS_LOCK:
        models = list(_MODELS.values())
        _MODELS.clear()
    for llm, lock in models:
        if lock.acquire(timeout=60):
            try:
                llm.close()
            finally:
                lock.release()


def perplexity_to_unit(perplexity: float, ceiling: float = DEFAULT_CEILING) -> float:
    """Map a perplexity onto [0, 1]: ``clamp(1 - ln(ppl) / ln(ceiling), 0, 1)``."""
    if not ceiling > 1.0:
        raise MetricError(f"perplexity ceiling {ceiling!r} must be greater than 1")
    if not perplexity >= 1.0:
        return 1.0
    return min(1.0, max(0.0, 1.0 - math.log(perplexity) / math.log(ceiling)))


def default_model_path() -> str:
    """The local GGUF model's path, as the ``local`` judge finds it.

    Raises:
        MetricError: the ``local`` extra (the model files) is not installed.
    """
    # deferred, as the three local-model imports below: only a perplexity metric needs them
    from .._judges._model_files import default_model_path as locate

    try:
        path = locate()
    except Exception as e:  # a missing extra, a failed assembly: the metric cannot run
        raise MetricError(f"perplexity needs the local model, which is unavailable: {e}") from None
    return os.fspath(path)


def _load(path: str, n_ctx: int) -> tuple[Any, threading.Lock]:
    with _MODELS_LOCK:
        cached = _MODELS.get(path)
        if cached is not None:
            return cached
        try:
            from llama_cpp import Llama
        except ImportError:
            raise missing_extra("local", "perplexity needs llama-cpp-python", MetricError) from None
        if not os.path.isfile(path):
            raise MetricError(f"perplexity model {path!r} does not exist")
        from llama_cpp import llama_cpp as lib

        from .._judges._local_load import PATCH_LOCK

        # the same load-time fix as the local judge: llama.cpp's repacked weight
        # buffers crash on some CPUs, so they are turned off while the model loads
        original = lib.llama_model_default_params

        def params() -> Any:
            p = original()
            p.use_extra_bufts = False
            return p

        with PATCH_LOCK:
            lib.llama_model_default_params = params
            try:
                llm = Llama(model_path=path, logits_all=True, n_ctx=n_ctx, verbose=False)
            except Exception as e:
                raise MetricError(f"could not load the perplexity model {path!r}: {e}") from None
            finally:
                lib.llama_model_default_params = original
        _MODELS[path] = (llm, threading.Lock())
        return _MODELS[path]


class Perplexity:
    """The ``perplexity`` metric: a callable metric bound to one GGUF model.

    Args:
        model_path: a GGUF file; default: the local judge's model.
        n_ctx: the context window to load the model with (the first load of a path wins).
    """

    def __init__(self, model_path: str | os.PathLike[str] | None = None, *, n_ctx: int = 2048):
        self.model_path = os.fspath(model_path) if model_path is not None else None
        self.n_ctx = n_ctx
        self.__name__ = "perplexity"

    def compute(self, text: str, context: str | None = None) -> tuple[float, int, bool]:
        """Return (perplexity, tokens scored, truncated) of ``text`` after ``context``."""
        import numpy as np

        path = self.model_path or default_model_path()
        llm, lock = _load(path, self.n_ctx)
        with lock:
            head = llm.tokenize(context.encode("utf-8"), add_bos=True) if context else []
            if not head:
                head = [llm.token_bos()]
            body = llm.tokenize(text.encode("utf-8"), add_bos=False)
            room = llm.n_ctx() - len(head)
            if room < 1:
                raise MetricError("the query alone fills the perplexity model's context window")
            truncated = len(body) > room
            body = body[:room]
            if not body:
                raise MetricError("perplexity needs text; the submission has no tokens")
            tokens = head + body
            llm.reset()
            llm.eval(tokens)
            logits = np.asarray(llm.scores[: len(tokens)], dtype=np.float64)
        rows = logits[len(head) - 1 : len(tokens) - 1]
        top = rows.max(axis=1, keepdims=True)
        log_z = (top + np.log(np.exp(rows - top).sum(axis=1, keepdims=True)))[:, 0]
        picked = rows[np.arange(len(body)), np.asarray(body)]
        mean_nll = float(np.mean(log_z - picked))
        return math.exp(mean_nll), len(body), truncated

    async def __call__(self, inp: MetricInput) -> MetricValue:
        """Score ``inp.prediction`` (in a worker thread)."""
        ceiling = inp.config.get("ceiling", DEFAULT_CEILING)
        if not isinstance(ceiling, int | float) or isinstance(ceiling, bool) or ceiling <= 1:
            raise MetricError(
                f"metric {inp.name!r}: config.ceiling {ceiling!r} must be a number > 1"
            )
        context = inp.query if inp.config.get("condition_on_query", False) else None
        from .._judges._local_worker import shared_scheduler

        # llama.cpp work runs on the local judge's one worker thread, one call at a time
        prediction = inp.prediction
        ppl, n, truncated = await shared_scheduler().run(lambda: self.compute(prediction, context))
        details = {"tokens": n, "truncated": truncated, "ceiling": float(ceiling)}
        return MetricValue(value=perplexity_to_unit(ppl, float(ceiling)), raw=ppl, details=details)
