"""Protocol (e) of ``judge_agreement.py``: LLM-Rubric's multi-choice questions.

223 real IT-help dialogues (microsoft/LLM-Rubric, MIT, bundled as
``example:llm_rubric_microsoft``), nine questions answered on a 1-4 scale (N/A where
it does not apply) by one human judge. Split dev/test by a hash of the dialogue id;
everything is fitted on dev and reported on test. The local judge's answers come
through the library's own grader and are cached like RiceChem's.
"""

from __future__ import annotations

import statistics
import sys
from collections import Counter
from collections.abc import Callable, Sequence

from _realdata import FeatureCache, Judged, judge_dataset, llm_rubric_split

from rubricjudge import RubricDataset
from rubricjudge._calibration._groups import Calibration
from rubricjudge._calibration._train import Sample, fit_groups
from rubricjudge.errors import UsageError

Pick = Callable[[Judged], str]


def _argmax(case: Judged) -> str:
    return max(case.probabilities, key=lambda k: case.probabilities[k])


def _position(case: Judged, label: str) -> int | None:
    """The option's place on the scale (1 = first), None for N/A."""
    for k, option in enumerate(case.criterion.options or [], 1):
        if option.label == label:
            return None if option.na else k
    return None


def _scores(cases: Sequence[Judged], pick: Pick) -> tuple[float, float, int]:
    """Exact-option accuracy, and Spearman's rho of the scale positions (N/A left out)."""
    from scipy.stats import spearmanr

    got = [pick(c) for c in cases]
    exact = sum(g == c.truth for g, c in zip(got, cases, strict=True)) / len(cases)
    pairs = [(_position(c, c.truth), _position(c, g)) for g, c in zip(got, cases, strict=True)]
    pairs = [(a, b) for a, b in pairs if a is not None and b is not None]
    rho = float(spearmanr([a for a, _ in pairs], [b for _, b in pairs]).statistic)
    return exact, rho, len(cases)


def _prior(dev: Sequence[Judged]) -> Pick:
    """Each question's most common human answer on dev (a baseline that reads no dialogue)."""
    common = {
        crit: Counter(c.truth for c in dev if c.crit == crit).most_common(1)[0][0]
        for crit in {c.crit for c in dev}
    }
    return lambda case: common[case.crit]


def _calibrated(dev: Sequence[Judged], method: str = "platt") -> Pick:
    samples = [Sample(c.criterion, c.probabilities, c.truth, c.features) for c in dev]
    try:
        groups = fit_groups(samples, "probe" if method == "probe" else "platt")
        cal = Calibration(judge="local", verdict_method="verdict-only", groups=groups)
    except UsageError as e:
        print(f"  (calibration not fitted: {e})", file=sys.stderr)
        return _argmax

    def pick(case: Judged) -> str:
        decided = cal.calibrate(case.criterion, case.probabilities, case.features)
        return decided[0] if decided is not None else _argmax(case)

    return pick


def protocol_e(cached_only: bool = False) -> None:
    from rubricjudge._datasets._bundled import load_example_dataset

    data: RubricDataset = load_example_dataset("llm_rubric_microsoft")
    splits: dict[str, list[int]] = {"dev": [], "test": []}
    for i, item in enumerate(data.items):
        splits[llm_rubric_split(str(item.id))].append(i)
    if cached_only:
        cache = FeatureCache("llm_rubric")
        n = len(data.rubric.rubric)
        splits = {k: [i for i in v if cache.has(i, n)] for k, v in splits.items()}
    dev = judge_dataset("llm_rubric", data, splits["dev"], label="LLM-Rubric dev")
    test = judge_dataset("llm_rubric", data, splits["test"], label="LLM-Rubric test")
    ndev, ntest = len(splits["dev"]), len(splits["test"])
    print(
        f"\n(e) LLM-Rubric multi-choice: fit on {ndev} dev dialogues, test {ntest} "
        f"({len(test)} answers; {'a cached subset' if cached_only else 'all'})"
    )
    print(f"{'method':44} {'n':>5} {'exact':>6} {'rho':>6}")
    secs = [c.seconds for c in test if c.seconds]
    for name, pick in (
        ("dev's most common answer per question", _prior(dev)),
        ("judge (verdict-only, most likely option)", _argmax),
        ("calibrate --method platt (fitted on dev)", _calibrated(dev)),
        ("calibrate --method probe (fitted on dev)", _calibrated(dev, "probe")),
    ):
        exact, rho, n = _scores(test, pick)
        print(f"{name:44} {n:5d} {exact:6.1%} {rho:6.3f}")
    if secs:
        print(f"  local judge: {statistics.mean(secs):.2f} s per question of a dialogue")
