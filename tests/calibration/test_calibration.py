"""Calibration: the fit recovers a known bias, refuses too few labels, round-trips as a file."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rubricjudge import ConfigError, Criterion, CriterionOption, UsageError
from rubricjudge._calibration._fit import apply_fit, fit_scale_bias
from rubricjudge._calibration._groups import Calibration, criterion_id, group_ids
from rubricjudge._calibration._train import Sample, fit_groups

POS = Criterion(name="c", weight=1, requirement="States that energy is conserved")
NEG = Criterion(name="f", weight=-1, requirement="Claims that energy is destroyed")
OTHER = Criterion(name="o", weight=1, requirement="Names the unit of energy")


def biased_judge(n: int, seed: int, *, scale: float, shift: float) -> tuple[np.ndarray, np.ndarray]:
    """True log-odds z; the judge reports sigmoid(scale * z + shift) as P(MET)."""
    rng = np.random.default_rng(seed)
    z = rng.normal(0, 2, n)
    truth = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(int)
    p_met = 1 / (1 + np.exp(-(scale * z + shift)))
    return np.stack([p_met, 1 - p_met], axis=1), 1 - truth  # index 0 = MET


def test_fit_recovers_scale_and_bias() -> None:
    probs, truth = biased_judge(4000, 0, scale=0.5, shift=-1.0)
    fit = fit_scale_bias(["MET", "UNMET"], probs.tolist(), truth.tolist(), l2=0.01)
    # judge log-odds = 0.5 z - 1, so z = 2 * (judge log-odds) + 2
    assert fit.scale == pytest.approx(2.0, abs=0.25)
    assert fit.bias[0] - fit.bias[1] == pytest.approx(2.0, abs=0.3)
    # a judge's 0.5 means true log-odds 2: about 0.88 MET
    assert apply_fit(fit, [0.5, 0.5])[0] == pytest.approx(0.88, abs=0.04)


def test_calibrating_a_biased_judge_raises_held_out_accuracy() -> None:
    train_p, train_t = biased_judge(400, 1, scale=0.6, shift=-1.5)
    test_p, test_t = biased_judge(2000, 2, scale=0.6, shift=-1.5)
    fit = fit_scale_bias(["MET", "UNMET"], train_p.tolist(), train_t.tolist())
    raw = np.mean(np.argmax(test_p, axis=1) == test_t)
    cal = np.mean(
        [int(np.argmax(apply_fit(fit, p))) == t for p, t in zip(test_p, test_t, strict=True)]
    )
    assert cal > raw + 0.05


def test_a_well_calibrated_judge_is_left_alone() -> None:
    probs, truth = biased_judge(3000, 3, scale=1.0, shift=0.0)
    fit = fit_scale_bias(["MET", "UNMET"], probs.tolist(), truth.tolist())
    assert fit.scale == pytest.approx(1.0, abs=0.1)
    assert abs(fit.bias[0] - fit.bias[1]) < 0.15


def samples(criterion: Criterion, n_met: int, n_unmet: int, p_met: float = 0.4) -> list[Sample]:
    probs = {"MET": p_met, "UNMET": 1 - p_met}
    return [Sample(criterion, probs, "MET")] * n_met + [Sample(criterion, probs, "UNMET")] * n_unmet


def test_groups_pool_by_sign_and_need_enough_labels() -> None:
    groups = fit_groups(samples(POS, 15, 10) + samples(NEG, 3, 40))
    ids = [g.id for g in groups]
    # penalties: only 3 MET, fewer than 5, so no pooled group and nothing to adjust
    assert ids == ["pooled:positive", f"criterion:{criterion_id(POS)}"]
    assert groups[0].n == 25 and groups[0].counts == {"MET": 15, "UNMET": 10}
    assert groups[0].base == "judge" and groups[1].base == "pooled"
    # a criterion's own adjustment needs a handful of labels with both answers
    few = fit_groups(samples(POS, 15, 10) + samples(OTHER, 5, 1))
    assert [g.id for g in few] == ["pooled:positive", f"criterion:{criterion_id(POS)}"]


def test_too_few_labels_says_how_many_are_needed() -> None:
    with pytest.raises(UsageError) as e:
        fit_groups(samples(POS, 4, 6))
    msg = str(e.value)
    assert "at least 20 labelled answers" in msg and "at least 5 of two different labels" in msg
    assert "pooled:positive: 10 labelled (4 MET, 6 UNMET)" in msg and "--train" in msg


def test_multi_choice_groups_share_options() -> None:
    opts = [CriterionOption(label=x) for x in ("1", "2", "3")]
    a = Criterion(name="a", weight=1, requirement="How clear?", options=opts)
    b = Criterion(name="b", weight=1, requirement="How polite?", options=opts)
    assert group_ids(a)[1] == group_ids(b)[1] != group_ids(a)[0]
    probs = {"1": 0.2, "2": 0.5, "3": 0.3}
    data = [Sample(a, probs, "3")] * 12 + [Sample(b, probs, "2")] * 12
    pooled, by_place = fit_groups(data)
    assert by_place.id == "pooled:positions:ordinal:3" and by_place.n == 24
    assert pooled.labels == ["1", "2", "3"] and pooled.n == 24
    cal = Calibration(judge="j", verdict_method="verdict-only", groups=[pooled])
    decided = cal.calibrate(a, probs)
    assert decided is not None and decided[0] in ("2", "3")


def test_options_in_other_words_share_a_calibration_by_place() -> None:
    # a judge that leans to the last option, on criteria whose options are worded differently
    def crit(name: str, words: tuple[str, str, str]) -> Criterion:
        opts = [CriterionOption(label=w, value=v) for w, v in zip(words, (0, 0.5, 1), strict=True)]
        return Criterion(name=name, weight=1, requirement=f"How {name}?", options=opts)

    a, b = crit("clear", ("murky", "fair", "clear")), crit("kind", ("rude", "neutral", "kind"))
    rng = np.random.default_rng(0)
    data = []
    for k in range(120):
        c = a if k % 2 else b
        truth = int(rng.integers(0, 3))
        p = np.full(3, 0.15)
        p[truth] += 0.25  # the right place gets a bump ...
        p[2] += 0.35  # ... but the last one always gets more
        p /= p.sum()
        labels = [o.label for o in c.options or []]
        data.append(Sample(c, dict(zip(labels, p.tolist(), strict=True)), labels[truth]))
    train, held = data[:80], data[80:]
    groups = {g.id: g for g in fit_groups(train)}
    assert "pooled:positions:ordinal:3" in groups
    third = Criterion(
        name="new",
        weight=1,
        requirement="How new?",
        options=[
            CriterionOption(label=w, value=v) for w, v in (("old", 0), ("so-so", 0.5), ("new", 1))
        ],
    )
    assert group_ids(third)[2] == "pooled:positions:ordinal:3"  # unseen wording, same group
    by_place = Calibration(
        judge="j", verdict_method="verdict-only", groups=[groups["pooled:positions:ordinal:3"]]
    )
    raw = sum(max(s.probabilities, key=lambda x: s.probabilities[x]) == s.truth for s in held)
    fixed = 0
    for s in held:
        decided = by_place.calibrate(s.criterion, s.probabilities)
        assert decided is not None and set(decided[1]) == set(s.probabilities)
        fixed += decided[0] == s.truth
    assert raw < 20 < fixed  # the lean to the last place is learned and undone


def test_a_criterion_id_ignores_names_and_spacing() -> None:
    renamed = Criterion(name="other", weight=2, requirement="States  that energy\nis conserved")
    assert criterion_id(renamed) == criterion_id(POS) != criterion_id(NEG)


def test_file_round_trip_and_errors_name_the_file(tmp_path: Path) -> None:
    group, _ = fit_groups(samples(POS, 15, 10))
    cal = Calibration(judge="local", verdict_method="verdict-only", groups=[group], train_ids=["a"])
    path = tmp_path / "cal.json"
    cal.save(path)
    assert Calibration.load(path) == cal
    assert not list(tmp_path.glob(".cal.json.*"))  # the temporary file was renamed
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "rubricjudge-calibration/1", "judge": "x"}))
    with pytest.raises(ConfigError, match=r"bad.json: verdict_method: Field required"):
        Calibration.load(bad)
    bad.write_text("{not json")
    with pytest.raises(ConfigError, match="bad.json: not JSON"):
        Calibration.load(bad)
    with pytest.raises(ConfigError, match="cannot read the calibration file"):
        Calibration.load(tmp_path / "missing.json")


def test_a_criterion_adjustment_moves_with_its_evidence() -> None:
    # the pooled fit says MET at 0.4 for both criteria; OTHER's humans say UNMET there.
    pooled = samples(POS, 30, 10)
    few = fit_groups(pooled + samples(OTHER, 2, 6))
    many = fit_groups(pooled + samples(OTHER, 10, 30))
    cal_few = Calibration(judge="j", verdict_method="verdict-only", groups=few)
    cal_many = Calibration(judge="j", verdict_method="verdict-only", groups=many)
    probs = {"MET": 0.4, "UNMET": 0.6}
    pos = cal_few.calibrate(POS, probs)
    p_few = cal_few.calibrate(OTHER, probs)
    p_many = cal_many.calibrate(OTHER, probs)
    assert pos is not None and p_few is not None and p_many is not None
    assert [g.id for g in cal_few.chain_for(OTHER)] == [
        "pooled:positive",
        f"criterion:{criterion_id(OTHER)}",
    ]
    # pooled says MET (0.75); 8 labels pull OTHER down some way, 40 labels further
    assert pos[1]["MET"] > p_few[1]["MET"] > p_many[1]["MET"]
    assert p_many[0] == "UNMET" and p_many[1]["MET"] == pytest.approx(0.25, abs=0.05)


def hidden(rng: np.random.Generator, truth: bool, dim: int = 16) -> bytes:
    """A hidden state whose first number knows the answer (the judge's words do not)."""
    vec = rng.normal(size=dim)
    vec[0] += 2.0 if truth else -2.0
    return vec.astype("<f2").tobytes()


def probe_samples(n: int, seed: int) -> list[Sample]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        truth = bool(i % 2)
        p = float(rng.uniform(0.3, 0.7))  # the judge's own probability says nothing
        out.append(
            Sample(POS, {"MET": p, "UNMET": 1 - p}, "MET" if truth else "UNMET", hidden(rng, truth))
        )
    return out


def test_a_probe_reads_what_the_hidden_state_knows(tmp_path: Path) -> None:
    train, test = probe_samples(200, 1), probe_samples(400, 2)
    platt = Calibration(judge="j", verdict_method="v", groups=fit_groups(train))
    probe = Calibration(judge="j", verdict_method="v", groups=fit_groups(train, "probe"))
    assert probe.needs_features() and not platt.needs_features()

    def accuracy(cal: Calibration, with_features: bool) -> float:
        right = 0
        for s in test:
            decided = cal.calibrate(
                s.criterion, s.probabilities, s.features if with_features else None
            )
            right += decided is not None and decided[0] == s.truth
        return right / len(test)

    assert accuracy(platt, True) < 0.65 < 0.9 < accuracy(probe, True)
    # without a hidden state (another judge, an old cached answer) the scale and bias apply
    assert accuracy(probe, False) == accuracy(platt, False)
    assert probe.method_for(POS, test[0].features) == (
        f"probe (pooled:positive) then scale-bias (criterion:{criterion_id(POS)})"
    )
    path = tmp_path / "probe.json"
    probe.save(path)
    assert Calibration.load(path) == probe


def test_a_probe_refuses_answers_without_hidden_states_and_other_models() -> None:
    plain = [Sample(s.criterion, s.probabilities, s.truth) for s in probe_samples(40, 3)]
    with pytest.raises(UsageError, match="40 of 40 labelled answers have none"):
        fit_groups(plain, "probe")
    cal = Calibration(
        judge="j", verdict_method="v", groups=fit_groups(probe_samples(40, 3), "probe")
    )
    other_model = np.zeros(32, dtype="<f2").tobytes()
    with pytest.raises(ConfigError, match="hidden state has 32 numbers, the probe expects 16"):
        cal.calibrate(POS, {"MET": 0.5, "UNMET": 0.5}, other_model)


def test_a_probe_file_with_bad_weights_names_the_field(tmp_path: Path) -> None:
    cal = Calibration(
        judge="j", verdict_method="v", groups=fit_groups(probe_samples(40, 3), "probe")
    )
    data = json.loads(cal.model_dump_json())
    data["groups"][0]["probe"]["dim"] = 17
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(ConfigError, match=r"groups\[0\]\.probe.*16 numbers where dim says 17"):
        Calibration.load(bad)


SCALE = Criterion(
    name="s",
    weight=1,
    requirement="How good is the answer?",
    options=[
        CriterionOption(label=x, value=v) for x, v in (("poor", 0), ("fair", 0.5), ("good", 1))
    ],
)


def option_samples(n: int, seed: int) -> list[Sample]:
    """A three-option criterion whose hidden state knows the answer (the judge leans to 'good')."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        k = i % 3
        vec = rng.normal(size=16)
        vec[k] += 3.0
        p = rng.dirichlet([1, 1, 3])
        probs = dict(zip(("poor", "fair", "good"), (float(x) for x in p), strict=True))
        out.append(Sample(SCALE, probs, ("poor", "fair", "good")[k], vec.astype("<f2").tobytes()))
    return out


def test_a_multi_choice_probe_picks_the_option_the_hidden_state_knows(tmp_path: Path) -> None:
    train, test = option_samples(150, 1), option_samples(300, 2)
    platt = Calibration(judge="j", verdict_method="v", groups=fit_groups(train))
    probe = Calibration(judge="j", verdict_method="v", groups=fit_groups(train, "probe"))
    pooled = [g for g in probe.groups if g.probe is not None]
    assert pooled and all(g.probe is not None and g.probe.outputs == 3 for g in pooled)

    def accuracy(cal: Calibration) -> float:
        got = [cal.calibrate(s.criterion, s.probabilities, s.features) for s in test]
        return sum(g is not None and g[0] == s.truth for g, s in zip(got, test, strict=True)) / len(
            test
        )

    assert accuracy(platt) < 0.5 < 0.9 < accuracy(probe)
    decided = probe.calibrate(SCALE, test[0].probabilities, test[0].features)
    assert decided is not None and abs(sum(decided[1].values()) - 1.0) < 1e-9
    path = tmp_path / "options.json"
    probe.save(path)
    assert Calibration.load(path) == probe


def test_a_multi_choice_probe_of_the_wrong_shape_names_the_field(tmp_path: Path) -> None:
    cal = Calibration(
        judge="j", verdict_method="v", groups=fit_groups(option_samples(60, 3), "probe")
    )
    data = json.loads(cal.model_dump_json())
    at = next(i for i, g in enumerate(data["groups"]) if g["probe"] is not None)
    data["groups"][at]["probe"]["biases"] = [0.0, 0.0]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(ConfigError, match=rf"groups\[{at}\]\.probe.*biases: a probe of 3 outputs"):
        Calibration.load(bad)


def test_a_probe_reads_the_middle_layers_and_names_them_in_the_file(tmp_path: Path) -> None:
    from rubricjudge._features import PROBE_BLOCKS, encode

    def samples(n: int, seed: int) -> list[Sample]:
        rng = np.random.default_rng(seed)
        out = []
        for i in range(n):
            truth = bool(i % 2)
            blocks = {b: rng.normal(size=16) for b in ("final", *PROBE_BLOCKS)}
            blocks["d18"][3] += 3.0 if truth else -3.0  # only a middle layer knows
            p = float(rng.uniform(0.3, 0.7))
            label = "MET" if truth else "UNMET"
            out.append(Sample(POS, {"MET": p, "UNMET": 1 - p}, label, encode(blocks)))
        return out

    train, test = samples(200, 1), samples(400, 2)
    cal = Calibration(judge="j", verdict_method="v", groups=fit_groups(train, "probe"))
    probe = cal.groups[0].probe
    assert probe is not None and probe.blocks == list(PROBE_BLOCKS) and probe.dim == 48
    right = sum(
        (d := cal.calibrate(s.criterion, s.probabilities, s.features)) is not None
        and d[0] == s.truth
        for s in test
    )
    assert right / len(test) > 0.9
    path = tmp_path / "cal.json"
    cal.save(path)
    assert Calibration.load(path) == cal
    # answers judged before the middle layers were read: a probe on the last layer
    old = fit_groups(probe_samples(60, 3), "probe")
    assert old[0].probe is not None and old[0].probe.blocks is None
    # features without the blocks a probe reads are refused, not guessed at
    with pytest.raises(ConfigError, match="hold no 'd14' block"):
        cal.calibrate(POS, {"MET": 0.5, "UNMET": 0.5}, hidden(np.random.default_rng(0), True))


def test_a_probe_fits_answers_judged_with_more_blocks_beside_the_others() -> None:
    """``hidden_blocks: all`` answers mix with ``probe`` ones: only the blocks read count."""
    from rubricjudge._features import PROBE_BLOCKS, RESEARCH_BLOCKS, encode

    rng = np.random.default_rng(5)
    mixed = []
    for i in range(80):
        truth = bool(i % 2)
        names = RESEARCH_BLOCKS if i % 3 == 0 else ("final", *PROBE_BLOCKS)
        blocks = {b: rng.normal(size=16) for b in names}
        blocks["d18"][3] += 3.0 if truth else -3.0
        mixed.append(
            Sample(POS, {"MET": 0.5, "UNMET": 0.5}, "MET" if truth else "UNMET", encode(blocks))
        )
    assert len({len(s.features or b"") for s in mixed}) == 2  # two sizes of features
    probe = fit_groups(mixed, "probe")[0].probe
    assert probe is not None and probe.blocks == list(PROBE_BLOCKS) and probe.dim == 48
    # one answer of another model (blocks 32 wide) among them is still refused
    other = {b: rng.normal(size=32) for b in ("final", *PROBE_BLOCKS)}
    odd = Sample(POS, {"MET": 0.5, "UNMET": 0.5}, "MET", encode(other))
    with pytest.raises(UsageError, match="differ in size"):
        fit_groups([*mixed, odd], "probe")
