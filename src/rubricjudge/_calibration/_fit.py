"""Fit a judge's answer probabilities to human labels: a scale and one bias per answer.

For an answer with judge probabilities ``p_1..p_k`` over its ``k`` allowed labels
the calibrated probabilities are ``softmax(a * log p + b)``: ``a`` sharpens or
flattens the judge's confidence (temperature scaling) and ``b`` moves it towards
the labels it under-uses (prior correction, as in "calibrate before use"). With
two labels this is Platt scaling of the judge's log-odds. The fit minimises the
cross-entropy with the human labels plus a small L2 pull of ``a`` towards 1 and
of ``b`` towards 0, by Newton's method (the problem is convex and has ``k + 1``
parameters), so it is deterministic and needs nothing beyond numpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["Fit", "apply_fit", "fit_scale_bias"]

_FLOOR = 1e-6  # probabilities are floored before the log: a judge's 0 is "very unlikely"


@dataclass(frozen=True)
class Fit:
    """A fitted scale and per-label biases over ``labels``."""

    labels: tuple[str, ...]
    scale: float
    bias: tuple[float, ...]


def _features(probs: Sequence[Sequence[float]]) -> np.ndarray:
    x = np.clip(np.asarray(probs, dtype=np.float64), _FLOOR, 1.0)
    x = x / x.sum(axis=1, keepdims=True)
    out: np.ndarray = np.log(x)
    return out


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    out: np.ndarray = e / e.sum(axis=-1, keepdims=True)
    return out


def fit_scale_bias(
    labels: Sequence[str],
    probs: Sequence[Sequence[float]],
    truth: Sequence[int],
    *,
    l2: float = 1.0,
    iterations: int = 100,
) -> Fit:
    """Fit ``a`` and ``b`` to ``truth`` (indices into ``labels``) from ``probs``.

    ``probs[n]`` is the judge's probability of each of ``labels`` on example ``n``.
    """
    x = _features(probs)
    n, k = x.shape
    y = np.zeros((n, k))
    y[np.arange(n), np.asarray(truth)] = 1.0
    theta = np.concatenate([[1.0], np.zeros(k)])
    prior = theta.copy()

    def loss(t: np.ndarray) -> float:
        z = t[0] * x + t[1:]
        z = z - z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        return float(-(y * logp).sum() + l2 * ((t - prior) ** 2).sum())

    current = loss(theta)
    for _ in range(iterations):
        s = _softmax(theta[0] * x + theta[1:])
        r = s - y
        grad = np.concatenate([[(r * x).sum()], r.sum(axis=0)]) + 2 * l2 * (theta - prior)
        # Σ_n J^T (diag(s) - s s^T) J with J = [x | I], summed in closed form
        sx = (s * x).sum(axis=1, keepdims=True)
        hess = 2 * l2 * np.eye(k + 1)
        hess[0, 0] += float((s * x * x).sum() - (sx**2).sum())
        cross = (s * x - s * sx).sum(axis=0)
        hess[0, 1:] += cross
        hess[1:, 0] += cross
        hess[1:, 1:] += np.diag(s.sum(axis=0)) - s.T @ s
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while t > 1e-6:  # backtracking keeps each step a descent step
            candidate = theta - t * step
            value = loss(candidate)
            if value <= current:
                break
            t /= 2
        else:
            break
        converged = abs(current - value) < 1e-10
        theta, current = candidate, value
        if converged:
            break
    return Fit(labels=tuple(labels), scale=float(theta[0]), bias=tuple(float(b) for b in theta[1:]))


def apply_fit(fit: Fit, probs: Sequence[float]) -> list[float]:
    """Calibrated probabilities of ``fit.labels`` from the judge's ``probs`` over them."""
    x = _features([probs])[0]
    return [float(v) for v in _softmax(fit.scale * x + np.asarray(fit.bias))]
