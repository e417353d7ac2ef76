"""A learned probe: logistic regression on the judge's hidden state where it decides.

A small judge's yes/no probabilities separate right answers from wrong ones poorly
on real data, and no threshold fixes that; its hidden state at the same token
(``JudgeResponse.features``, from the local judge) carries much more. A probe is
``P(MET) = sigmoid(w . h + c * logodds + b)``: ``h`` the hidden state, ``logodds``
the judge's own ``log P(yes) / P(no)``. It is fitted by L2-regularised logistic
regression (scikit-learn) on standardised inputs and stored with the
standardisation folded into ``w`` and ``b``, so applying it is one dot product.

A multi-choice probe (``outputs`` = k, the labels of its group) has one row of
weights per label: ``P(label j) = softmax_j(W_j . h + J_j . log p + b_j)``, ``p`` the
judge's probabilities over the k labels. Measured in ``benchmarks/judge_agreement.py``
(docs/trust.md).
"""

from __future__ import annotations

import base64
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from .._errors import ConfigError, missing_extra
from .._features import RESEARCH_BLOCKS, block_values
from ._checks import PROBE_LIMIT, check_parameter

__all__ = [
    "LOGODDS_LIMIT",
    "Probe",
    "fit_option_probe",
    "fit_probe",
    "has_blocks",
    "hidden_state",
]

LOGODDS_LIMIT = 13.8
"""The judge's log-odds are clipped to +-13.8 (probabilities floored at 1e-6)."""


def hidden_state(features: bytes, blocks: Sequence[str] | None = None) -> np.ndarray:
    """Blocks ``blocks`` (default ``final``) of ``JudgeResponse.features`` as float32.

    Raises:
        ConfigError: the features lack one of the blocks (judged by an older version).
    """
    try:
        out: np.ndarray = block_values(features, list(blocks or ("final",)))
    except ValueError as e:
        raise ConfigError(f"the judge's hidden state: {e}") from None
    return out


def has_blocks(features: bytes, blocks: Sequence[str]) -> bool:
    """Whether ``features`` hold every block of ``blocks``."""
    try:
        block_values(features, list(blocks))
    except ValueError:
        return False
    return True


def _logodds(p_met: float, p_unmet: float) -> float:
    a, b = max(p_met, 1e-6), max(p_unmet, 1e-6)
    return max(-LOGODDS_LIMIT, min(LOGODDS_LIMIT, math.log(a / b)))


class Probe(BaseModel):
    """A fitted probe (see the module docstring); ``weights`` is base64 float32."""

    model_config = ConfigDict(extra="forbid")

    dim: int = Field(gt=0)
    weights: str
    judge_weight: float
    bias: float
    regularisation: float = Field(gt=0)
    """scikit-learn's ``C``: the inverse strength of the L2 penalty it was fitted with."""
    outputs: int = Field(default=1, ge=1)
    """1: a binary probe (log-odds of MET); k >= 2: one logit per label of its group."""
    blocks: list[str] | None = None
    """Which blocks of the judge's features it reads (``rubricjudge._features``), in
    order; None: ``final`` alone (probes written before the other blocks existed)."""
    judge_weights: list[float] | None = None
    """Multi-choice: k x k, row j the weights of label j on the judge's log-probabilities."""
    biases: list[float] | None = None
    """Multi-choice: one bias per label (``bias`` is then unused)."""

    @model_validator(mode="after")
    def _check(self) -> Probe:
        try:
            raw = base64.b64decode(self.weights, validate=True)
        except ValueError:
            raise ValueError("weights: not base64 text") from None
        unknown = sorted(set(self.blocks or ()) - set(RESEARCH_BLOCKS))
        if unknown or (self.blocks is not None and not self.blocks):
            raise ValueError(f"blocks: unknown {unknown}; known: {', '.join(RESEARCH_BLOCKS)}")
        if self.dim % len(self.blocks or ("final",)):
            raise ValueError(
                f"dim: {self.dim} is not a multiple of the {len(self.blocks or ())} blocks"
            )
        if len(raw) != 4 * self.dim * self.outputs:
            says = "dim says" if self.outputs == 1 else "dim x outputs says"
            raise ValueError(
                f"weights: {len(raw) // 4} numbers where {says} {self.dim * self.outputs}"
            ) from None
        numbers = np.frombuffer(raw, dtype="<f4")
        if not np.isfinite(numbers).all():
            raise ValueError("weights: not every number is finite")
        if numbers.size and float(np.abs(numbers).max()) > PROBE_LIMIT:
            raise ValueError(
                f"weights: a number beyond {PROBE_LIMIT:g} (either sign) is not a fitted weight"
            )
        if not (math.isfinite(self.judge_weight) and math.isfinite(self.bias)):
            raise ValueError("judge_weight and bias must be finite numbers")
        check_parameter(self.judge_weight, "judge_weight", PROBE_LIMIT)
        check_parameter(self.bias, "bias", PROBE_LIMIT)
        k = self.outputs
        if k > 1:
            if self.judge_weights is None or len(self.judge_weights) != k * k:
                raise ValueError(f"judge_weights: a probe of {k} outputs needs {k * k} numbers")
            if self.biases is None or len(self.biases) != k:
                raise ValueError(f"biases: a probe of {k} outputs needs {k} numbers")
            if not all(math.isfinite(x) for x in [*self.judge_weights, *self.biases]):
                raise ValueError("judge_weights and biases must be finite numbers")
            for i, x in enumerate(self.judge_weights):
                check_parameter(x, f"judge_weights[{i}]", PROBE_LIMIT)
            for i, x in enumerate(self.biases):
                check_parameter(x, f"biases[{i}]", PROBE_LIMIT)
        elif self.judge_weights is not None or self.biases is not None:
            raise ValueError("judge_weights and biases belong to a probe of 2 or more outputs")
        return self

    def vector(self) -> np.ndarray:
        """The hidden-state weights as numbers (``outputs`` rows of ``dim``, flattened)."""
        out: np.ndarray = np.frombuffer(base64.b64decode(self.weights), dtype="<f4")
        return out

    def _hidden(self, features: bytes) -> np.ndarray:
        names = self.blocks or ["final"]
        try:
            h: np.ndarray = block_values(features, names)
        except ValueError as e:
            raise ConfigError(
                f"the judge's hidden state does not fit this probe ({e}): it was fitted for "
                "another model or version; calibrate this judge"
            ) from None
        if h.shape != (self.dim,):
            raise ConfigError(
                f"the judge's hidden state has {h.size} numbers, the probe expects {self.dim}: "
                "it was fitted for another model; calibrate this judge"
            )
        return h

    def logit(self, features: bytes, p_met: float, p_unmet: float) -> float:
        """The probe's log-odds of MET for one answer (a binary probe).

        Raises:
            ConfigError: the hidden state is not of this probe's size (another model).
        """
        h = self._hidden(features)
        z = _logodds(p_met, p_unmet)
        return float(h @ self.vector()) + self.judge_weight * z + self.bias

    def probabilities(self, features: bytes, judge: Sequence[float]) -> list[float]:
        """The probe's probability of each of its group's labels (a multi-choice probe).

        ``judge`` is the judge's probability of each label, in the group's order.

        Raises:
            ConfigError: the hidden state is not of this probe's size, or ``judge`` does
                not give one probability per output.
        """
        k = self.outputs
        if len(judge) != k or self.judge_weights is None or self.biases is None:
            raise ConfigError(f"this probe decides between {k} labels, not {len(judge)}")
        h = self._hidden(features)
        z = self.vector().reshape(k, self.dim) @ h
        z = z + np.asarray(self.judge_weights).reshape(k, k) @ _log_probs(judge)
        z = z + np.asarray(self.biases)
        z = np.exp(z - z.max())
        return [float(x) for x in z / z.sum()]


def _log_probs(p: Sequence[float]) -> np.ndarray:
    """Log of probabilities renormalised over the labels, floored as the log-odds are."""
    a = np.maximum(np.asarray(p, dtype=np.float64), 1e-6)
    out: np.ndarray = np.maximum(np.log(a / a.sum()), -LOGODDS_LIMIT)
    return out


def _inputs(
    features: Sequence[bytes], judge: np.ndarray, blocks: Sequence[str] | None = None
) -> np.ndarray:
    """The hidden states beside the judge's own numbers, one row per answer."""
    states = [hidden_state(f, blocks) for f in features]
    if len({h.size for h in states}) != 1:  # the blocks read, not the whole features
        raise ConfigError("the hidden states of the training answers differ in size")
    h = np.stack(states).astype(np.float64)
    out: np.ndarray = np.concatenate([h, judge], axis=1)
    return out


def _fit(x: np.ndarray, y: np.ndarray, regularisation: float) -> tuple[Any, np.ndarray, np.ndarray]:
    """L2 logistic regression on standardised ``x``: (model, mean, scale) to fold back."""
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError:
        raise missing_extra("local", "a probe is fitted with scikit-learn") from None
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-3
    model = LogisticRegression(C=regularisation, max_iter=5000)
    model.fit((x - mean) / scale, y)
    return model, mean, scale


def fit_probe(
    features: Sequence[bytes],
    met: Sequence[tuple[float, float]],
    truth: Sequence[bool],
    *,
    regularisation: float,
    blocks: Sequence[str] | None = None,
) -> Probe:
    """Fit a probe on labelled answers.

    Args:
        features: each answer's hidden state (``JudgeResponse.features``).
        met: each answer's judge probabilities ``(P(MET), P(UNMET))``.
        truth: each answer's human label (True: MET).
        regularisation: scikit-learn's ``C`` (smaller: a stronger pull to zero).
        blocks: the feature blocks to read (default ``final``).

    Raises:
        ConfigError: scikit-learn is missing, or the hidden states differ in size.
    """
    z = np.array([_logodds(a, b) for a, b in met])[:, None]
    x = _inputs(features, z, blocks)
    model, mean, scale = _fit(x, np.asarray(truth, dtype=int), regularisation)
    w = model.coef_[0] / scale  # fold the standardisation into the weights
    b = float(model.intercept_[0] - (w * mean).sum())
    return Probe(
        dim=x.shape[1] - 1,
        weights=base64.b64encode(w[:-1].astype("<f4").tobytes()).decode("ascii"),
        judge_weight=float(w[-1]),
        bias=b,
        regularisation=regularisation,
        blocks=list(blocks) if blocks else None,
    )


def fit_option_probe(
    features: Sequence[bytes],
    judge: Sequence[Sequence[float]],
    truth: Sequence[int],
    outputs: int,
    *,
    regularisation: float,
    blocks: Sequence[str] | None = None,
) -> Probe:
    """Fit a multi-choice probe: multinomial logistic regression over ``outputs`` labels.

    Args:
        features: each answer's hidden state.
        judge: each answer's judge probabilities over the labels, in the group's order.
        truth: each answer's human label, as its index in the group's labels.
        outputs: how many labels the group has; a label no answer has is never chosen.
        regularisation: scikit-learn's ``C``.
        blocks: the feature blocks to read (default ``final``).

    Raises:
        ConfigError: scikit-learn is missing, the hidden states differ in size, or fewer
            than two labels occur.
    """
    x = _inputs(features, np.stack([_log_probs(p) for p in judge]), blocks)
    y = np.asarray(truth, dtype=int)
    present = sorted(set(y.tolist()))
    if len(present) < 2:
        raise ConfigError("a probe needs answers with at least two different labels")
    model, mean, scale = _fit(x, y, regularisation)
    coef = np.zeros((outputs, x.shape[1]))
    intercept = np.full(outputs, -30.0)  # a label no training answer had: never chosen
    if len(present) == 2:  # scikit-learn gives one row for two classes: split it evenly
        coef[present[1]], coef[present[0]] = model.coef_[0] / 2, -model.coef_[0] / 2
        intercept[present[1]] = model.intercept_[0] / 2
        intercept[present[0]] = -model.intercept_[0] / 2
    else:
        for row, cls in enumerate(model.classes_):
            coef[int(cls)], intercept[int(cls)] = model.coef_[row], model.intercept_[row]
    w = coef / scale  # fold the standardisation into the weights
    b = intercept - w @ mean
    d = x.shape[1] - outputs
    return Probe(
        dim=d,
        weights=base64.b64encode(w[:, :d].astype("<f4").tobytes()).decode("ascii"),
        judge_weight=0.0,
        bias=0.0,
        regularisation=regularisation,
        outputs=outputs,
        judge_weights=[float(v) for v in w[:, d:].reshape(-1)],
        biases=[float(v) for v in b],
        blocks=list(blocks) if blocks else None,
    )
