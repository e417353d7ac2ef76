"""Agreement with real people, on real answers: the numbers behind the local judge's defaults.

Run: ``python benchmarks/judge_agreement.py [--ricechem DIR] [--protocols a,b,c,d,e,r]
[--repeats 5] [--max-train N] [--exclusive q1:a,b]``.

Data (see ``_realdata.py``): RiceChem's 1,240 student answers with teaching-assistant
labels (27 binary criteria), split 80/10/10 per question with seed 42 as Sonkar et
al. and autorubric report; LLM-Rubric's dialogues with one human judge's multi-choice
answers, split dev/test by dialogue. The local judge is asked once per (answer,
criterion) through the library's own grader (``verdict-only``, no calibration), and
its probabilities and hidden state are cached; each protocol then fits with the
library's own calibration code (``fit_groups``) and grades the held-out answers.
Nothing is ever fitted on what is reported.

Protocols (binary figures micro-averaged over every held-out (answer, criterion) pair):

* (a) RiceChem in distribution: fit on the train split of all four questions, report
  on the test split (the published protocol).
* (b) few labels: N in {10, 20, 50} answers per question drawn from the train split
  (``--repeats`` draws), fit on those only; same test split.
* (c) no labels: the judge alone, the calibration the local judge ships, "always MET".
* (d) cold start: fit on three questions' train splits, test on the fourth's test split.
* (e) LLM-Rubric multi-choice test split: exact option and Spearman's rho against the
  human's option, fitted on the dev split.
* (r) relations (not in the default set: ``--protocols r``): RiceChem test-split agreement
  with and without criteria declared mutually exclusive (``--exclusive q1:a,b``; q1's
  full/partial explanation pair by default), the judge alone and with the calibration
  the local judge ships; the verdicts of the declared group are decided together by the
  library's own joint decision (``decide_related``). Only the declared questions' test
  splits are judged.

Methods: ``judge`` (the verdict the judge's probabilities give), ``shipped`` (the
calibration in ``rubricjudge/data/local_calibration.json``), ``platt`` and ``probe``
(``rubricjudge calibrate --method ...``). The published anchors are printed beside.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("RUBRICJUDGE_CACHE_DIR", str(HERE / ".cache"))

from _realdata import (  # noqa: E402
    FeatureCache,
    Judged,
    autorubric_split,
    judge_dataset,
    ricechem_dir,
)

from rubricjudge import Rubric, RubricDataset  # noqa: E402
from rubricjudge._calibration._groups import Calibration  # noqa: E402
from rubricjudge._calibration._train import Sample, fit_groups  # noqa: E402
from rubricjudge._model._relations import decide_related  # noqa: E402
from rubricjudge._model._reports import CalibrationRecord, CriterionReport  # noqa: E402
from rubricjudge.errors import UsageError  # noqa: E402

ANCHORS = [
    ("GPT-4, zero-shot (Sonkar et al. 2024)", "70.9%", "0.689"),
    ("autorubric + Gemini-3-flash, zero-shot", "77.2%", "0.832"),
    ("autorubric + Gemini-3-flash, 5 examples", "80.0%", "-"),
    ("RoBERTa-large-MNLI fine-tuned on train (Sonkar et al.)", "86.8%", "0.888"),
]
COLD_ANCHORS = {1: "65.9%", 2: "68.7%", 3: "66.7%", 4: "60.6%"}  # Sonkar et al., cold start

Predict = Callable[[Judged], tuple[str, float]]  # (verdict, P(MET)) for one answer


@dataclass
class Scores:
    """Binary agreement of one method on one set of held-out answers."""

    n: int
    accuracy: float
    kappa: float
    f1: float
    auc: float
    met_rate: float

    def row(self, name: str) -> str:
        return (
            f"{name:44} {self.n:5d} {self.accuracy:6.1%} {self.kappa:6.3f} {self.f1:6.3f} "
            f"{self.auc:6.3f} {self.met_rate:6.1%}"
        )


HEADER = f"{'method':44} {'n':>5} {'acc':>6} {'kappa':>6} {'F1':>6} {'AUC':>6} {'MET%':>6}"


def score(cases: Sequence[Judged], predict: Predict) -> Scores:
    """Accuracy, Cohen's kappa, F1 of MET and the AUC of P(MET) against the labels."""
    gold = [c.truth == "MET" for c in cases]
    got = [predict(c) for c in cases]
    pred = [v == "MET" for v, _ in got]
    n = len(cases)
    right = sum(g == p for g, p in zip(gold, pred, strict=True))
    pg, pp = sum(gold) / n, sum(pred) / n
    pe = pg * pp + (1 - pg) * (1 - pp)
    kappa = (right / n - pe) / (1 - pe) if pe < 1 else math.nan
    tp = sum(g and p for g, p in zip(gold, pred, strict=True))
    f1 = 2 * tp / (sum(gold) + sum(pred)) if sum(gold) + sum(pred) else math.nan
    return Scores(n, right / n, kappa, f1, auc(gold, [p for _, p in got]), pp)


def auc(gold: Sequence[bool], p: Sequence[float]) -> float:
    """Area under the ROC curve (ties count half), by ranks."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    ranks = [0.0] * len(p)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and p[order[j + 1]] == p[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    pos = sum(gold)
    neg = len(gold) - pos
    if not pos or not neg:
        return math.nan
    return (sum(r for r, g in zip(ranks, gold, strict=True) if g) - pos * (pos + 1) / 2) / (
        pos * neg
    )


def judge_alone(case: Judged) -> tuple[str, float]:
    p = case.probabilities.get("MET", 0.0)
    return ("MET" if p > case.probabilities.get("UNMET", 0.0) else "UNMET"), p


def always_met(case: Judged) -> tuple[str, float]:
    return "MET", 0.5


def with_calibration(cal: Calibration) -> Predict:
    def predict(case: Judged) -> tuple[str, float]:
        decided = cal.calibrate(case.criterion, case.probabilities, case.features)
        if decided is None:
            return judge_alone(case)
        return decided[0], decided[1].get("MET", 0.0)

    return predict


PROBE_BLOCKS: tuple[str, ...] | None = None  # None: the library's default (--probe-blocks)


def fitted(train: Sequence[Judged], method: str) -> Predict:
    samples = [Sample(c.criterion, c.probabilities, c.truth, c.features) for c in train]
    try:
        if PROBE_BLOCKS is None:
            groups = fit_groups(samples, "probe" if method == "probe" else "platt")
        else:
            blocks = None if PROBE_BLOCKS == ("final",) else PROBE_BLOCKS
            groups = fit_groups(
                samples, "probe" if method == "probe" else "platt", probe_blocks=blocks
            )
    except UsageError as e:  # what calibrate would refuse: the judge alone, said
        print(f"  ({method} not fitted, the judge alone: {e})", file=sys.stderr)
        return judge_alone
    return with_calibration(
        Calibration(judge="local", verdict_method="verdict-only", groups=groups)
    )


def shipped() -> Predict:
    from importlib import resources

    path = resources.files("rubricjudge").joinpath("data", "local_calibration.json")
    return with_calibration(Calibration.load(str(path)))


# -- protocols ----------------------------------------------------------------------
def load_ricechem(
    folder: Path, max_train: int | None, cached_only: bool
) -> dict[int, dict[str, list[Judged]]]:
    """Per question, the judge's answers on its train and test splits."""
    out: dict[int, dict[str, list[Judged]]] = {}
    for q in (1, 2, 3, 4):
        data = RubricDataset.from_file(folder / f"q{q}.json")
        split = autorubric_split(len(data.items))
        if cached_only:  # a partial run: what the cache holds, said loudly
            cache = FeatureCache(f"ricechem_q{q}")
            n = len(data.rubric.rubric)
            split = {k: [i for i in v if cache.has(i, n)] for k, v in split.items()}
            print(f"q{q}: --cached-only", file=sys.stderr)
        train = split["train"][:max_train] if max_train else split["train"]
        print(f"q{q}: {len(train)} train / {len(split['test'])} test answers", file=sys.stderr)
        out[q] = {
            "test": judge_dataset(f"ricechem_q{q}", data, split["test"], label=f"q{q} test"),
            "train": judge_dataset(f"ricechem_q{q}", data, train, label=f"q{q} train"),
        }
    return out


def protocol_a(rc: dict[int, dict[str, list[Judged]]]) -> None:
    train = [c for q in rc for c in rc[q]["train"]]
    test = [c for q in rc for c in rc[q]["test"]]
    print(f"\n(a) RiceChem in distribution: fit on {len(train)} train pairs, test {len(test)}")
    print(HEADER)
    print(score(test, judge_alone).row("judge (verdict-only, uncalibrated)"))
    for method in ("platt", "probe"):
        print(score(test, fitted(train, method)).row(f"calibrate --method {method}"))
    for name, acc, f1 in ANCHORS:
        print(f"{'  anchor: ' + name:44} {'':5} {acc:>6} {'':>6} {f1:>6}")


def protocol_b(
    rc: dict[int, dict[str, list[Judged]]], repeats: int, ns: Sequence[int] = (10, 20, 50)
) -> None:
    """Few labels, two ways: one calibration per question fitted on N of its answers (what
    ``calibrate`` on one question's file does), and one fitted on N answers of each question."""
    test = [c for q in rc for c in rc[q]["test"]]
    print(f"\n(b) few labels: N answers per question from train, {repeats} draws; test {len(test)}")
    print(f"{'method':44} {'acc mean':>9} {'(min-max)':>15} {'kappa':>6} {'F1':>6} {'AUC':>6}")
    for n in ns:
        for per_question in (True, False):
            for method in ("platt", "probe"):
                runs = []
                for r in range(repeats):
                    rng = random.Random(1000 * n + r)
                    picked: dict[int, list[Judged]] = {}
                    for q in rc:
                        items = sorted({c.item for c in rc[q]["train"]})
                        if len(items) < n:
                            print(f"  q{q} has {len(items)} train answers judged, fewer than N={n}")
                        chosen = set(rng.sample(items, min(n, len(items))))
                        picked[q] = [c for c in rc[q]["train"] if c.item in chosen]
                    if per_question:
                        fits = {q: fitted(picked[q], method) for q in rc}
                        answers = {id(c): fits[q](c) for q in rc for c in rc[q]["test"]}
                        runs.append(score(test, lambda c, a=answers: a[id(c)]))
                    else:
                        runs.append(score(test, fitted([c for q in rc for c in picked[q]], method)))
                accs = [s.accuracy for s in runs]
                how = "per question" if per_question else "all questions"
                print(
                    f"{f'N={n} {how}: calibrate --method {method}':44} "
                    f"{statistics.mean(accs):9.1%} ({min(accs):5.1%}-{max(accs):5.1%}) "
                    f"{statistics.mean(s.kappa for s in runs):6.3f} "
                    f"{statistics.mean(s.f1 for s in runs):6.3f} "
                    f"{statistics.mean(s.auc for s in runs):6.3f}"
                )


def protocol_c(rc: dict[int, dict[str, list[Judged]]]) -> None:
    test = [c for q in rc for c in rc[q]["test"]]
    print(f"\n(c) no labels: RiceChem test split ({len(test)} pairs)")
    print(HEADER)
    print(score(test, always_met).row("always MET"))
    print(score(test, judge_alone).row("judge (verdict-only, uncalibrated)"))
    print(score(test, shipped()).row("shipped calibration (the default)"))


def protocol_d(rc: dict[int, dict[str, list[Judged]]]) -> None:
    print("\n(d) cold start: fit on three questions' train splits, test the fourth")
    print(HEADER)
    pooled: dict[str, list[tuple[Judged, tuple[str, float]]]] = {}
    for held in rc:
        train = [c for q in rc if q != held for c in rc[q]["train"]]
        test = rc[held]["test"]
        for name, predict in (  # the shipped calibration saw every train split: not here
            ("judge", judge_alone),
            ("platt (the shipped recipe)", fitted(train, "platt")),
            ("probe", fitted(train, "probe")),
        ):
            print(score(test, predict).row(f"q{held} held out: {name}"))
            pooled.setdefault(name, []).extend((c, predict(c)) for c in test)
        print(f"{'  anchor: RoBERTa-large-MNLI (Sonkar et al.)':44} {'':5} {COLD_ANCHORS[held]:>6}")
    for name, rows in pooled.items():
        answers = {id(c): got for c, got in rows}
        cases = [c for c, _ in rows]
        print(score(cases, lambda c, a=answers: a[id(c)]).row(f"all four held out: {name}"))


# -- (r) relations: an exclusive pair decided together ------------------------------
RICECHEM_EXCLUSIVE = {1: ("full_pe_ie_explanation", "partial_pe_ie_explanation")}
"""RiceChem's levels of one idea: q1's full and partial explanation of potential energy
against ionisation energy (its teaching assistants never marked both MET)."""


def parse_exclusive(given: Sequence[str]) -> dict[int, tuple[str, ...]]:
    """``--exclusive q1:a,b`` values as {question: names}; RiceChem q1's pair by default."""
    if not given:
        return dict(RICECHEM_EXCLUSIVE)
    out: dict[int, tuple[str, ...]] = {}
    for value in given:
        head, _, names = value.partition(":")
        if not head.startswith("q") or not head[1:].isdigit() or "," not in names:
            sys.exit(f"--exclusive {value!r}: write it as qN:criterion_a,criterion_b[,...]")
        out[int(head[1:])] = tuple(n.strip() for n in names.split(","))
    return out


def decided(
    rubric: Rubric, cases: Sequence[Judged], cal: Calibration | None
) -> dict[tuple[int, int], str]:
    """(item, criterion) -> verdict, each answer's verdicts decided with ``rubric``'s relations.

    The per-criterion answer is what the grader makes of the cached probabilities (the
    calibrated probability when ``cal`` is given, as ``calibrate_outcome`` records it);
    the joint decision is the library's own (``decide_related``, which the grader runs).
    """
    by_item: dict[int, list[Judged]] = {}
    for c in cases:
        by_item.setdefault(c.item, []).append(c)
    out: dict[tuple[int, int], str] = {}
    for item, judged in by_item.items():
        judged.sort(key=lambda c: c.crit)
        reports = []
        for c in judged:
            criterion = rubric.criteria[c.crit]
            verdict, p = judge_alone(c)
            record = None
            if cal is not None and (got := cal.calibrate(c.criterion, c.probabilities, c.features)):
                verdict, p = got[0], got[1].get("MET", 0.0)
                record = CalibrationRecord(p_calibrated=p)
            reports.append(
                CriterionReport(
                    criterion=criterion,
                    verdict=verdict,
                    probabilities=c.probabilities,
                    calibration=record,
                )
            )
        for c, r in zip(judged, decide_related(rubric, reports), strict=True):
            out[(item, c.crit)] = r.verdict.value if r.verdict is not None else "UNMET"
    return out


def protocol_r(folder: Path, exclusive: dict[int, tuple[str, ...]], cached_only: bool) -> None:
    """Test-split agreement with and without each declared exclusive group."""
    for q, names in sorted(exclusive.items()):
        data = RubricDataset.from_file(folder / f"q{q}.json")
        rubric = data.rubric
        keys = [c.key for c in rubric.criteria]
        missing = [n for n in names if n not in keys]
        if missing:
            sys.exit(f"--exclusive q{q}: no criteria {missing}; q{q} has {keys}")
        related = Rubric(rubric.criteria, relations=[{"exclusive": list(names)}])
        test_items = autorubric_split(len(data.items))["test"]
        if cached_only:  # a partial run: what the cache holds, said loudly
            cache = FeatureCache(f"ricechem_q{q}")
            test_items = [i for i in test_items if cache.has(i, len(rubric.criteria))]
            print(f"q{q}: --cached-only, {len(test_items)} test answers", file=sys.stderr)
        test = judge_dataset(f"ricechem_q{q}", data, test_items, label=f"q{q} test")
        pair = [c for c in test if rubric.criteria[c.crit].key in names]
        truth_both = _both_met({(c.item, c.crit): c.truth for c in pair}, names, rubric)
        print(
            f"\n(r) q{q} test split ({len(test_items)} answers, {len(test)} pairs), exclusive: "
            f"{', '.join(names)}; the labels mark {truth_both} answers with more than one MET"
        )
        print(
            f"{'method':52} {'n':>5} {'acc':>6} {'kappa':>6} {'F1':>6} {'MET%':>6} "
            f"{'pair acc':>8} {'pair k':>6} {'both MET':>8} {'score MAE':>9}"
        )
        for how, cal in (("uncalibrated", None), ("default calibration", _shipped_calibration())):
            for with_relation in (False, True):
                got = decided(related if with_relation else rubric, test, cal)
                s = score(test, lambda c, g=got: (g[(c.item, c.crit)], 0.5))
                p = score(pair, lambda c, g=got: (g[(c.item, c.crit)], 0.5))
                name = f"judge, {how}, {'with' if with_relation else 'without'} the relation"
                print(
                    f"{name:52} {s.n:5d} {s.accuracy:6.1%} {s.kappa:6.3f} {s.f1:6.3f} "
                    f"{s.met_rate:6.1%} {p.accuracy:8.1%} {p.kappa:6.3f} "
                    f"{_both_met(got, names, rubric):8d} {_score_error(rubric, test, got):9.3f}"
                )


def _score_error(rubric: Rubric, cases: Sequence[Judged], got: dict[tuple[int, int], str]) -> float:
    """Mean absolute difference between each answer's score and its labels' score."""
    items = sorted({c.item for c in cases})
    truth = {(c.item, c.crit): c.truth for c in cases}
    n = len(rubric.criteria)
    errors = []
    for item in items:
        mine = rubric.compute_score([got[(item, k)] for k in range(n)])
        theirs = rubric.compute_score([truth[(item, k)] for k in range(n)])
        errors.append(abs((mine or 0.0) - (theirs or 0.0)))
    return statistics.mean(errors)


def _both_met(verdicts: dict[tuple[int, int], str], names: Sequence[str], rubric: Rubric) -> int:
    index = {c.key: i for i, c in enumerate(rubric.criteria)}
    items = {item for item, _ in verdicts}
    return sum(
        1 for item in items if sum(verdicts.get((item, index[n])) == "MET" for n in names) > 1
    )


def _shipped_calibration() -> Calibration:
    from importlib import resources

    path = resources.files("rubricjudge").joinpath("data", "local_calibration.json")
    return Calibration.load(str(path))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ricechem", help="folder with RiceChem's q1.json .. q4.json")
    ap.add_argument("--protocols", default="a,b,c,d,e")
    ap.add_argument("--repeats", type=int, default=5, help="draws per N in protocol (b)")
    ap.add_argument(
        "--max-train",
        type=int,
        help="judge at most N train answers per question (a random subset: the split's order)",
    )
    ap.add_argument(
        "--cached-only", action="store_true", help="use only answers already judged (partial)"
    )
    ap.add_argument(
        "--exclusive",
        action="append",
        default=[],
        metavar="qN:A,B",
        help="protocol (r): criteria of question N that exclude one another (repeatable); "
        "RiceChem q1's full/partial explanation pair by default",
    )
    ap.add_argument(
        "--probe-blocks",
        help="the blocks a probe reads, comma-separated ('final': the last layer alone, as "
        "before the middle layers were read); default: the library's",
    )
    ap.add_argument("--n", type=int, nargs="*", default=[10, 20, 50], help="N in protocol (b)")
    args = ap.parse_args()
    global PROBE_BLOCKS
    if args.probe_blocks:
        PROBE_BLOCKS = tuple(args.probe_blocks.split(","))
    wanted = set(args.protocols.split(","))
    if "r" in wanted:
        protocol_r(ricechem_dir(args.ricechem), parse_exclusive(args.exclusive), args.cached_only)
    if wanted & set("abcd"):
        rc = load_ricechem(ricechem_dir(args.ricechem), args.max_train, args.cached_only)
        secs = [c.seconds for q in rc for part in rc[q].values() for c in part if c.seconds]
        if secs:
            print(
                f"local judge: {statistics.mean(secs):.2f} s per judged criterion on average "
                f"({len(secs)} criteria, KV cache reused within each answer)"
            )
        for p, run in (("a", protocol_a), ("c", protocol_c), ("d", protocol_d)):
            if p in wanted:
                run(rc)
        if "b" in wanted:
            protocol_b(rc, args.repeats, args.n)
    if "e" in wanted:
        from _mc_agreement import protocol_e

        protocol_e(args.cached_only)


if __name__ == "__main__":
    main()
