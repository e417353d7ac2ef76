"""``local``: the embedded judge, llama-cpp-python running a small GGUF model in-process.

``local`` uses the Qwen2.5-Coder-1.5B-Instruct model assembled from the
``rubricjudge[local]`` packages; ``local/<path.gguf>`` runs any other chat GGUF.
Each model is loaded once per process, on first use, and shared by every judge
that names it. llama.cpp is not reentrant, so all calls run one at a time on one
worker thread (see ``_local_worker``) and the event loop stays free meanwhile;
waiting calls about the submission that was just judged go first.

Replies are constrained by a grammar built from the request's JSON Schema, so
they parse. The prompt is laid out by the model's own chat template, with the
template's markup tokenized as special tokens and the prompts as plain text (a
submission cannot close its turn by writing ``<|im_end|>``). The system prompt
and the shared start of the user prompt give identical tokens for every
criterion of one submission, so llama.cpp keeps their KV cache and evaluates
only the rest; ``usage.cache_read_input_tokens`` reports how many were reused.

``JudgeConfig.extra_params`` may set ``n_ctx`` (4096), ``n_threads`` (all
cores but one), ``n_batch`` (512), ``use_extra_bufts`` (False: llama.cpp's repacked
weight buffers crash on some CPUs), ``kv_reuse`` (True), ``hidden_blocks`` (which
hidden states a request for features gets: ``probe``, the last layer and the middle
layers a probe reads, or ``all``, every block of ``_features.RESEARCH_BLOCKS``) and the sampling
options ``top_p``, ``top_k``, ``min_p``, ``repeat_penalty``,
``presence_penalty`` and ``frequency_penalty``. ``timeout_s`` does not apply: a
local call cannot hang, and ``max_tokens`` (512 unless set) bounds its length.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .._errors import ConfigError, JudgeError, install_hint
from .._model._reports import TokenUsage
from ._base import JudgeConfig, JudgeRequest, JudgeResponse
from ._local_decide import decision_layout, remainder_grammar, value_probabilities
from ._local_load import (
    HIDDEN_BLOCKS,
    MODELS,
    MODELS_LOCK,
    Model,
    default_threads,
    grammar_for,
    load_model,
)
from ._local_worker import shared_scheduler
from ._model_files import MODEL_FILENAME, MODEL_SHA256, default_model_path, model_chunk_paths
from ._parse import parse_json_reply
from ._reliable import Provider

__all__ = ["LocalJudge"]

_INSTALL_HINT = install_hint("local")
_DEFAULT_MAX_TOKENS = 512
_MIN_ROOM = 128  # tokens a reply needs at least; a shorter budget fails before any work
_LOAD_DEFAULTS: dict[str, Any] = {"n_ctx": 4096, "n_batch": 512, "use_extra_bufts": False}
_SAMPLING = {
    "top_p",
    "top_k",
    "min_p",
    "repeat_penalty",
    "presence_penalty",
    "frequency_penalty",
}
_OPTIONS = {*_LOAD_DEFAULTS, "n_threads", "kv_reuse", "hidden_blocks", *_SAMPLING}


class LocalJudge:
    """The embedded llama.cpp judge (``local`` or ``local/<path.gguf>``)."""

    def __init__(self, model: str, config: JudgeConfig) -> None:
        if importlib.util.find_spec("llama_cpp") is None:
            raise ConfigError(
                f"the local judge needs llama-cpp-python, which is not installed; "
                f"run: {_INSTALL_HINT}"
            )
        unknown = sorted(set(config.extra_params) - _OPTIONS)
        if unknown:
            raise ConfigError(
                f"unknown option(s) {unknown!r} in extra_params for the local judge; valid: "
                + ", ".join(sorted(_OPTIONS))
            )
        self.config = config
        self.spec = f"local/{model}" if model else "local"
        self._opts: dict[str, Any] = {
            **_LOAD_DEFAULTS,
            "n_threads": default_threads(),
            "kv_reuse": True,
            "hidden_blocks": "probe",
        }
        self._opts.update(config.extra_params)
        if self._opts["hidden_blocks"] not in HIDDEN_BLOCKS:
            raise ConfigError(
                f"extra_params hidden_blocks={self._opts['hidden_blocks']!r} for the local "
                f"judge: use one of {', '.join(sorted(HIDDEN_BLOCKS))}"
            )
        self.path: Path | None
        identity: dict[str, Any]
        if model:
            path = Path(model).expanduser()
            if not path.is_file():
                raise ConfigError(
                    f"judge {self.spec!r}: no model file at {str(path)!r}; give the path of a "
                    "GGUF file, or use 'local' for the bundled model"
                )
            self.path = path.resolve()
            st = self.path.stat()
            identity = {"path": str(self.path), "size": st.st_size, "mtime_ns": st.st_mtime_ns}
            model_name = self.path.name.removesuffix(".gguf")
        else:
            model_chunk_paths()  # fail now, with the install hint, if the extra is missing
            self.path = None
            identity = {"sha256": MODEL_SHA256}
            model_name = MODEL_FILENAME.removesuffix(".gguf")
        self._provider = Provider(
            backend="local", model=model_name, key=f"local|{identity}", identity=identity
        )

    def __repr__(self) -> str:
        return f"LocalJudge({self.spec!r})"

    @property
    def name(self) -> str:
        """``local`` or ``local/<path>``."""
        return self.spec

    @property
    def preferred_verdict_method(self) -> str:
        """``verdict-only``: the layout this model agrees with people best in, and fastest.

        Measured in ``benchmarks/judge_agreement.py`` (docs/trust.md).
        """
        return "verdict-only"

    @property
    def default_calibration(self) -> Path | None:
        """The calibration fitted for the bundled model on rubricjudge's own labelled data.

        None for another GGUF (``local/<path>``): calibrate it with ``rubricjudge calibrate``.
        """
        if self.path is not None:
            return None
        from importlib import resources

        resource = resources.files("rubricjudge").joinpath("data", "local_calibration.json")
        return Path(str(resource)) if resource.is_file() else None

    @property
    def provider(self) -> Provider:
        """Limits key and cache identity (the model file); no price row: it is free."""
        return self._provider

    def _model(self) -> Model:
        path = self.path or default_model_path()
        keys = ("n_ctx", "n_batch", "n_threads", "use_extra_bufts", "hidden_blocks")
        key = (str(path), *(self._opts[k] for k in keys))
        with MODELS_LOCK:
            got = MODELS.get(key)
        if got is None:
            got = load_model(path, self._opts)
            with MODELS_LOCK:
                got = MODELS.setdefault(key, got)
        return got

    async def judge(self, request: JudgeRequest) -> JudgeResponse:
        """Answer ``request`` with the local model; one attempt, grammar-constrained.

        Raises:
            JudgeError: the prompt does not fit the context (``bad_request``) or the
                reply was cut off (``parse``).
            ConfigError: the model file cannot be assembled or loaded.
        """
        if request.media:  # a text-only model must not judge what it cannot see
            raise JudgeError(
                f"the local judge reads text only and this submission holds "
                f"{_count_media(request)}; grade it with a judge that sees images and "
                "documents (openai/..., anthropic/..., litellm/...)",
                category="bad_request",
            )
        start = time.perf_counter()
        group = None
        if request.shared_prefix_chars > 0:  # calls about one submission: run them together
            shared = "\x00".join(
                (self._provider.key, request.system, request.user[: request.shared_prefix_chars])
            )
            group = hashlib.sha256(shared.encode("utf-8", "surrogatepass")).hexdigest()
        response = await shared_scheduler().run(lambda: self._run(request), group)
        # _run measured the model's own time; the rest was spent waiting for the
        # model thread (other calls, or the model loading)
        total = time.perf_counter() - start
        return JudgeResponse(
            data=response.data,
            raw_text=response.raw_text,
            usage=response.usage,
            cost=0.0,
            latency_s=response.latency_s,
            queue_s=max(total - response.latency_s, 0.0),
            model=response.model,
            probabilities=response.probabilities,
            features=response.features,
        )

    def _run(self, request: JudgeRequest) -> JudgeResponse:
        model = self._model()
        with model.lock:
            began = time.perf_counter()
            response = self._complete(model, request)
            return replace(response, latency_s=time.perf_counter() - began)

    def _tokens(self, model: Model, request: JudgeRequest) -> list[int]:
        llm = model.llm
        head, mid, tail = model.scaffold

        def tok(text: str, special: bool) -> list[int]:
            if not text:
                return []
            return list(llm.tokenize(text.encode("utf-8"), add_bos=False, special=special))

        return (
            tok(head, True)
            + tok(request.system, False)
            + tok(mid, True)
            + tok(request.user, False)
            + tok(tail, True)
        )

    def _complete(self, model: Model, request: JudgeRequest) -> JudgeResponse:
        cfg, opts, llm = self.config, self._opts, model.llm
        tokens = self._tokens(model, request)
        max_tokens = _pick(request.max_tokens, cfg.max_tokens) or _DEFAULT_MAX_TOKENS
        room = model.n_ctx - len(tokens)
        if room < min(max_tokens, _MIN_ROOM):
            raise JudgeError(
                f"the prompt is {len(tokens)} tokens, which leaves {max(room, 0)} of the local "
                f"model's context of {model.n_ctx} for the reply; raise it with "
                "extra_params={'n_ctx': ...}",
                category="bad_request",
            )
        max_tokens = min(max_tokens, room)
        if not opts["kv_reuse"]:
            llm.reset()
        reused = 0
        n_past = int(llm.n_tokens)
        if n_past:
            prev = llm.input_ids[:n_past].tolist()
            while reused < min(n_past, len(tokens)) and prev[reused] == tokens[reused]:
                reused += 1
            reused = min(reused, len(tokens) - 1)  # llama.cpp re-evaluates the last one
        run = _Run(model=model, tokens=tokens, max_tokens=max_tokens, opts=opts)
        run.temperature = float(_pick(request.temperature, cfg.temperature) or 0.0)
        run.seed = _pick(request.seed, cfg.seed)
        features = None
        if request.decision is not None:
            data, text, n_out, probs, features = run.decide(request)
        else:
            text, n_out = run.generate(tokens, grammar_for(model, request.schema))
            data, probs = run.parse(text), None
        usage = TokenUsage(
            prompt_tokens=len(tokens),
            completion_tokens=n_out,
            total_tokens=len(tokens) + n_out,
            cache_read_input_tokens=reused,
        )
        return JudgeResponse(
            data=data,
            raw_text=text,
            usage=usage,
            cost=0.0,
            model=model.name,
            probabilities=probs,
            features=features,
        )


@dataclass
class _Run:
    """One request's generation on the worker thread (the model lock held)."""

    model: Model
    tokens: list[int]
    max_tokens: int
    opts: Mapping[str, Any]
    temperature: float = 0.0
    seed: int | None = None
    cut_off: bool = False

    def generate(self, prompt: list[int], grammar: Any) -> tuple[str, int]:
        """Complete ``prompt`` under ``grammar``: the text and how many tokens it took."""
        params: dict[str, Any] = {k: self.opts[k] for k in _SAMPLING if k in self.opts}
        if self.seed is not None:
            params["seed"] = int(self.seed)
        room = self.model.n_ctx - len(prompt)
        try:
            out = self.model.llm.create_completion(
                prompt,
                max_tokens=max(1, min(self.max_tokens, room)),
                temperature=self.temperature,
                grammar=grammar,
                **params,
            )
        except ValueError as e:
            raise JudgeError(str(e), category="bad_request") from e
        except RuntimeError as e:
            raise JudgeError(f"llama.cpp failed: {e}", category="server") from e
        choice = out["choices"][0]
        self.cut_off = choice.get("finish_reason") == "length"
        return str(choice.get("text") or ""), int(out["usage"]["completion_tokens"])

    def parse(self, text: str) -> dict[str, Any]:
        """The reply object in ``text``, or a ``parse`` JudgeError."""
        try:
            return parse_json_reply(text)
        except ValueError as e:
            why = str(e)
            if self.cut_off:
                why += f" (cut off at max_tokens={self.max_tokens})"
            raise JudgeError(why, category="parse", raw_text=text) from None

    def _span(self, request: JudgeRequest) -> tuple[int, int] | None:
        """The token positions of ``request.pool_chars`` (the submission), if pooled.

        Only a judge whose blocks average over the submission (``hidden_blocks: all``)
        needs them: otherwise nothing is tokenised again here.
        """
        cap = self.model.capture
        if request.pool_chars is None or not request.features or cap is None or not cap.pooling():
            return None
        a, b = request.pool_chars
        head, mid, _ = self.model.scaffold
        llm = self.model.llm

        def n(text: str, special: bool) -> int:
            if not text:
                return 0
            return len(llm.tokenize(text.encode("utf-8"), add_bos=False, special=special))

        start = n(head, True) + n(request.system, False) + n(mid, True)
        lo, hi = start + n(request.user[:a], False), start + n(request.user[:b], False)
        return (lo, hi) if hi > lo else None

    def _tok(self, text: str) -> list[int]:
        return list(self.model.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def decide(
        self, request: JudgeRequest
    ) -> tuple[dict[str, Any], str, int, dict[str, float], bytes | None]:
        """Answer a request with a decision.

        Returns (data, raw text, tokens out, probabilities, features): ``features``
        is the hidden state where the decision is read when the request asked for it.
        """
        decision = request.decision
        assert decision is not None
        props, at = decision_layout(request.schema, decision)
        head: dict[str, Any] = {}
        text, n_out = "", 0
        if at > 0:  # the fields before the decision (a reason) are written first
            text, n_out = self.generate(self.tokens, grammar_for(self.model, request.schema))
            data = self.parse(text)
            head = {k: data[k] for k in props[:at] if k in data}
        prefix = "{" + "".join(
            f"{json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}, " for k, v in head.items()
        )
        prefix += json.dumps(decision.key) + ":"
        base = self.tokens + self._tok(prefix)
        last = at == len(props) - 1
        decided = value_probabilities(
            self.model.llm,
            base,
            decision,
            last=last,
            temperature=self.temperature,
            seed=self.seed,
            hidden=request.features,
            capture=self.model.capture if request.features else None,
            span=self._span(request),
        )
        feats = decided.hidden
        if at > 0:
            return (
                {**data, decision.key: decided.value},
                text,
                n_out,
                decided.probabilities,
                feats,
            )
        written = prefix + " " + json.dumps(decided.value)
        if last:
            text = written + "}"
        else:  # the fields after it (a reason) are generated after the chosen value
            rest = props[at + 1 :]
            key = "\x00rest\x00" + json.dumps([request.schema.get("properties"), rest])
            grammar = self.model.grammars.get(key)
            if grammar is None:
                from llama_cpp.llama_grammar import LlamaGrammar

                gbnf = remainder_grammar(request.schema, rest)
                grammar = self.model.grammars[key] = LlamaGrammar.from_string(gbnf, verbose=False)
            more, n_out = self.generate(base + self._tok(" " + json.dumps(decided.value)), grammar)
            text = written + more
        return self.parse(text), text, n_out, decided.probabilities, feats


def _pick(first: Any, second: Any) -> Any:
    return first if first is not None else second


def _count_media(request: JudgeRequest) -> str:
    """``2 images and 1 document``: what a request holds that is not text."""
    kinds = [p.kind for p in request.media]
    said = [
        f"{kinds.count(k)} {k}{'s' if kinds.count(k) > 1 else ''}" for k in dict.fromkeys(kinds)
    ]
    return " and ".join(said)
