"""A learned probe: logistic regression on the judge's hidden state where it decides.

A small judge's yes/no probabilities separate right answers from wrong ones poorly
on real data, and no threshold fixes that; its hidden state at the same token
(``JudgeResponse.features``, from the local judge) carries much more. A probe is
``P(MET) = sigmoid(w . h + c * logodds + b)``: ``h`` the hidden state, ``logodds``
the judge's own ``log P(yes) / P(no)``. It is fitted by L2-regularised logistic
regression (scikit-learn) on standardised inputs and stored with the
standardisation folded into ``w`` and ``b``, so applying it is one dot product.
Measured in ``benchmarks/judge_agreement.py`` (docs/trust.md).
"""

from __future__ import annotations

import base64
import math
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from .._errors import ConfigError, missing_extra

__all__ = ["LOGODDS_LIMIT", "Probe", "fit_probe", "hidden_state"]

LOGODDS_LIMIT = 13.8
"""The judge's log-odds are clipped to +-13.8 (probabilities floored at 1e-6)."""


def hidden_state(features: bytes) -> np.ndarray:
    """The float16 bytes of ``JudgeResponse.features`` as float32 numbers."""
    out: np.ndarray = np.frombuffer(features, dtype="<f2").astype(np.float32)
    return out


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

    @model_validator(mode="after")
    def _check(self) -> Probe:
        try:
            raw = base64.b64decode(self.weights, validate=True)
        except ValueError:
            raise ValueError("weights: not base64 text") from None
        if len(raw) != 4 * self.dim:
            raise ValueError(
                f"weights: {len(raw) // 4} numbers where dim says {self.dim}"
            ) from None
        if not np.isfinite(np.frombuffer(raw, dtype="<f4")).all():
            raise ValueError("weights: not every number is finite")
        if not (math.isfinite(self.judge_weight) and math.isfinite(self.bias)):
            raise ValueError("judge_weight and bias must be finite numbers")
        return self

    def vector(self) -> np.ndarray:
        """The hidden-state weights as numbers."""
        out: np.ndarray = np.frombuffer(base64.b64decode(self.weights), dtype="<f4")
        return out

    def logit(self, features: bytes, p_met: float, p_unmet: float) -> float:
        """The probe's log-odds of MET for one answer.

        Raises:
            ConfigError: the hidden state is not of this probe's size (another model).
        """
        h = hidden_state(features)
        if h.shape != (self.dim,):
            raise ConfigError(
                f"the judge's hidden state has {h.size} numbers, the probe expects {self.dim}: "
                "it was fitted for another model; calibrate this judge"
            )
        z = _logodds(p_met, p_unmet)
        return float(h @ self.vector()) + self.judge_weight * z + self.bias


def fit_probe(
    features: Sequence[bytes],
    met: Sequence[tuple[float, float]],
    truth: Sequence[bool],
    *,
    regularisation: float,
) -> Probe:
    """Fit a probe on labelled answers.

    Args:
        features: each answer's hidden state (``JudgeResponse.features``).
        met: each answer's judge probabilities ``(P(MET), P(UNMET))``.
        truth: each answer's human label (True: MET).
        regularisation: scikit-learn's ``C`` (smaller: a stronger pull to zero).

    Raises:
        ConfigError: scikit-learn is missing, or the hidden states differ in size.
    """
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError:
        raise missing_extra("local", "a probe is fitted with scikit-learn") from None
    dims = {len(f) for f in features}
    if len(dims) != 1:
        raise ConfigError("the hidden states of the training answers differ in size")
    h = np.stack([hidden_state(f) for f in features]).astype(np.float64)
    z = np.array([_logodds(a, b) for a, b in met])[:, None]
    x = np.concatenate([h, z], axis=1)
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-3
    model = LogisticRegression(C=regularisation, max_iter=5000)
    model.fit((x - mean) / scale, np.asarray(truth, dtype=int))
    w = model.coef_[0] / scale  # fold the standardisation into the weights
    b = float(model.intercept_[0] - (w * mean).sum())
    return Probe(
        dim=h.shape[1],
        weights=base64.b64encode(w[:-1].astype("<f4").tobytes()).decode("ascii"),
        judge_weight=float(w[-1]),
        bias=b,
        regularisation=regularisation,
    )
