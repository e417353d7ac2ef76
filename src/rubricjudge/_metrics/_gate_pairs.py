"""How ``gate`` pairs two runs' items by id, and when it refuses to decide.

An item pairs when both runs have a number for it. Items in both runs without a
pair are *failed* (no report on a side, or the judge failed on what the metric
needs) or *N/A*; baseline items missing from the new run count against the
coverage as failed ones do, N/A ones count on neither side (see ``PairCounts``).
"""

from __future__ import annotations

import math

from .._errors import ConfigError
from ._gate_result import PairCounts
from ._gate_values import SideValues

__all__ = ["new_failures", "pair_sides", "refuse_if_few"]


def _index(side: SideValues, where: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for i, key in enumerate(side.ids):
        if key in out:
            raise ConfigError(
                f"{where}: items {out[key]} and {i} share the id {key!r}; runs pair up by "
                "item id, so ids must be unique"
            )
        out[key] = i
    return out


def pair_sides(
    base: SideValues, new: SideValues, where: tuple[str, str]
) -> tuple[list[tuple[int, int]], PairCounts]:
    """The (baseline index, new index) of every pair, and how the items paired up.

    Raises:
        ConfigError: a run holds one id twice (``where`` names the runs).
    """
    ib, inew = _index(base, where[0]), _index(new, where[1])
    pairs: list[tuple[int, int]] = []
    failed_b = failed_n = failed = na = 0
    for key, i in ib.items():
        j = inew.get(key)
        if j is None:
            continue
        if math.isfinite(base.value[i]) and math.isfinite(new.value[j]):
            pairs.append((i, j))
            continue
        fb = bool(base.failed[i]) and not math.isfinite(base.value[i])
        fn = bool(new.failed[j]) and not math.isfinite(new.value[j])
        failed_b += fb
        failed_n += fn
        failed += fb or fn
        na += not (fb or fn)
    common = sum(1 for key in ib if key in inew)
    only_b = len(ib) - common
    denominator = len(pairs) + only_b + failed
    counts = PairCounts(
        baseline_items=len(ib),
        new_items=len(inew),
        paired=len(pairs),
        only_baseline=only_b,
        only_new=len(inew) - common,
        failed_baseline=failed_b,
        failed_new=failed_n,
        failed=failed,
        not_applicable=na,
        coverage=len(pairs) / denominator if denominator else 0.0,
    )
    return pairs, counts


def new_failures(base: SideValues, new: SideValues) -> list[str]:
    """``"item ID: why"`` for each item that failed in the new run but not in the baseline.

    A failure of the new run is never a paired improvement: the gate fails on these
    (see ``gate_runs``), whatever the change of the items that paired.
    """
    ib = {key: i for i, key in enumerate(base.ids)}
    out = []
    for j, key in enumerate(new.ids):
        i = ib.get(key)
        if i is None or not new.failed[j] or math.isfinite(new.value[j]):
            continue
        if base.failed[i] and not math.isfinite(base.value[i]):
            continue
        why = new.why[j] if j < len(new.why) else None
        if why is not None:  # None: the new run never graded it (coverage counts that)
            out.append(f"item {key!r}: {why}")
    return out


def refuse_if_few(counts: PairCounts, min_pairs: int, min_coverage: float) -> None:
    """Refuse, with the counts, when fewer than ``min_pairs`` items or ``min_coverage`` paired.

    Raises:
        ConfigError: too few items pair up to decide.
    """
    if counts.paired >= min_pairs and counts.coverage >= min_coverage:
        return
    k = counts
    could = k.paired + k.only_baseline + k.failed
    parts = [
        f"{n} {what}"
        for n, what in (
            (k.only_baseline, "are not in the new run"),
            (k.failed_new, "failed in the new run"),
            (k.failed_baseline, "failed in the baseline"),
        )
        if n
    ]
    aside = [
        f"{n} {what}"
        for n, what in ((k.not_applicable, "are N/A"), (k.only_new, "are only in the new run"))
        if n
    ]
    why = f": {', '.join(parts)}" if parts else ""
    also = f"; {' and '.join(aside)}" if aside else ""
    raise ConfigError(
        f"too few items pair up to gate: {k.paired} items have a value in both runs, "
        f"{k.coverage:.0%} of the {could} baseline items that could{why}{also}. The gate needs "
        f"--min-pairs {min_pairs} and --min-coverage {min_coverage:g}: compare runs of the same "
        "dataset (items pair by id), grade the failed items again (`rubricjudge evaluate "
        "--resume`), or lower those limits"
    )
