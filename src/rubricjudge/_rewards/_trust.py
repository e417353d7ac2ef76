"""The grader a reward builds from a judge spec, with the trust options of ``grade``.

Rewards differ from ``grade`` in one default: nobody reads a reward's reasons, so
the short extra call that explains each criterion costing points (``verdict-only``
layouts, see ``_graders._reasons``) is off unless asked for (``reasons=True``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._graders._criterion import CriterionGrader

from .._graders._criterion import CriterionGrader

__all__ = ["reward_grader", "trust_kwargs"]


def trust_kwargs(
    *,
    calibration: Any = "default",
    verdict_method: str = "auto",
    reasons: bool = False,
) -> dict[str, Any]:
    """The grader arguments of the trust options (the grader checks them)."""
    out: dict[str, Any] = {"verdict_method": verdict_method, "reasons": reasons}
    if calibration != "default":
        out["calibration"] = calibration
    return out


def reward_grader(
    judge: Any,
    *,
    calibration: Any = "default",
    verdict_method: str = "auto",
    reasons: bool = False,
    judge_options: dict[str, Any] | None = None,
    concurrency: int | None = None,
) -> CriterionGrader:
    """A per-criterion grader for rewards: ``judge`` with the trust options, reasons off.

    ``calibration`` is a calibration file (or :class:`Calibration`) fitted by
    ``rubricjudge calibrate``, ``"default"`` for the judge's own, or None for none.
    """
    options = trust_kwargs(calibration=calibration, verdict_method=verdict_method, reasons=reasons)
    if judge_options:
        options["judge_options"] = judge_options
    return CriterionGrader(judge=judge, concurrency=concurrency, **options)
