"""The built-in hybrid metrics: values, mappings and the errors of metrics that cannot run."""

from __future__ import annotations

import sys

import pytest
from sacrebleu.metrics import BLEU, CHRF

from rubricjudge._hybrid._base import MetricError, MetricInput
from rubricjudge._hybrid._readability import (
    count_syllables,
    flesch_reading_ease,
    readability,
    text_counts,
)
from rubricjudge._hybrid._text import (
    bleu,
    chrf,
    exact_match,
    normalize_answer,
    rouge,
    rouge_variant,
)

PRED = "the cat sat on the mat"
REF = "the cat sat on a mat"


def inp(prediction: str, *refs: str, **config: object) -> MetricInput:
    return MetricInput(prediction=prediction, references=refs, config=config, name="m")


def test_bleu_and_chrf_are_sacrebleu_over_100() -> None:
    b = bleu(inp(PRED, REF))
    assert b.raw == pytest.approx(BLEU(effective_order=True).sentence_score(PRED, [REF]).score)
    assert b.value == pytest.approx(b.raw / 100)
    assert 0 < b.value < 1
    assert bleu(inp(PRED, PRED)).value == pytest.approx(1.0)
    c = chrf(inp(PRED, REF))
    assert c.raw == pytest.approx(CHRF().sentence_score(PRED, [REF]).score)
    assert chrf(inp(PRED, "zzz qqq")).value < c.value
    plus = chrf(inp(PRED, REF, word_order=2))
    assert plus.raw != c.raw
    # the best of several references counts
    assert bleu(inp(PRED, "unrelated words here", PRED)).value == pytest.approx(1.0)


def test_rouge_by_hand() -> None:
    # unigrams: 2 of 3 shared -> P = R = F = 2/3; bigrams: "the cat" shared of 2 -> 1/2
    r1 = rouge_variant("rouge1")(inp("the cat sat", "the cat ran"))
    r2 = rouge_variant("rouge2")(inp("the cat sat", "the cat ran"))
    assert r1.value == pytest.approx(2 / 3)
    assert r2.value == pytest.approx(1 / 2)
    assert rouge(inp("the cat sat", "the cat ran")).details["variant"] == "rougeL"
    assert rouge(inp("a b", "a b", variant="rouge2")).value == pytest.approx(1.0)
    with pytest.raises(MetricError, match="rouge3"):
        rouge(inp("a", "a", variant="rouge3"))


def test_exact_match_normalises_by_default() -> None:
    assert exact_match(inp("  Paris.  ", "paris")).value == 1.0
    assert exact_match(inp("PARIS", "paris", normalize=False)).value == 0.0
    assert exact_match(inp("Lyon", "paris", "lyon")).value == 1.0
    assert exact_match(inp("Paris, France", "paris")).value == 0.0
    assert normalize_answer("Ｐａｒｉｓ!") == "paris"


@pytest.mark.parametrize("metric", [bleu, chrf, rouge, exact_match])
def test_missing_reference_is_an_error_not_zero(metric: object) -> None:
    with pytest.raises(MetricError, match="needs a reference"):
        metric(inp("anything"))  # type: ignore[operator]


def test_missing_extra_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sacrebleu", None)
    monkeypatch.setitem(sys.modules, "rouge_score", None)
    with pytest.raises(MetricError, match=r"rubricjudge\[hybrid\]"):
        bleu(inp(PRED, REF))
    with pytest.raises(MetricError, match=r"rubricjudge\[hybrid\]"):
        rouge(inp(PRED, REF))


@pytest.mark.parametrize(
    ("word", "n"),
    [
        ("cat", 1),
        ("table", 2),
        ("hope", 1),
        ("hopes", 1),
        ("jumped", 1),
        ("needed", 2),
        ("beautiful", 3),
        ("yellow", 2),
        ("readability", 5),
    ],
)
def test_syllable_heuristic(word: str, n: int) -> None:
    assert count_syllables(word) == n


def test_flesch_reading_ease_by_hand() -> None:
    # 6 words, 1 sentence, 6 syllables
    assert flesch_reading_ease("The cat sat on the mat.") == pytest.approx(
        206.835 - 1.015 * 6 - 84.6 * 1
    )
    text = "Beautiful tables needed. The cat jumped!"
    c = text_counts(text)
    assert (c.words, c.sentences, c.syllables) == (6, 2, 3 + 2 + 2 + 1 + 1 + 1)
    assert flesch_reading_ease(text) == pytest.approx(206.835 - 1.015 * 3 - 84.6 * 10 / 6)


def test_readability_mapping_clamps_to_unit() -> None:
    easy = readability(inp("The cat sat on the mat."))
    assert easy.value == 1.0 and easy.raw == pytest.approx(116.145)
    hard = readability(
        inp(
            "Notwithstanding considerable institutional heterogeneity, comprehensive "
            "organizational restructuring necessitates extraordinary deliberation."
        )
    )
    assert hard.value == 0.0 and hard.raw is not None and hard.raw < 0
    mid = readability(inp("Rubrics help graders agree about what a good answer contains."))
    assert mid.raw is not None and 0 < mid.raw < 100
    assert mid.value == pytest.approx(mid.raw / 100)
    with pytest.raises(MetricError, match="no"):
        readability(inp("123 456 !!!"))
