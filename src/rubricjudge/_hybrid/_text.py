"""Reference-based text metrics: BLEU, chrF (sacrebleu), ROUGE (rouge-score), exact match.

Every metric here compares the submission with one or more references and maps
its number onto [0, 1]:

- ``bleu``: sacrebleu's sentence BLEU (0-100, ``effective_order`` so short texts
  are not zero by construction) divided by 100. Config: ``tokenize`` (sacrebleu's
  tokenizer name, default ``"13a"``), ``lowercase`` (default false).
- ``chrf``: sacrebleu's sentence chrF (0-100) divided by 100. Config: ``word_order``
  (0 for chrF, 2 for chrF++; default 0), ``lowercase``.
- ``rouge1`` / ``rouge2`` / ``rougeL`` / ``rougeLsum``: rouge-score's F-measure
  (already in [0, 1]), the best over the references. ``rouge`` picks the variant
  from ``config.variant`` (default ``rougeL``). Config: ``use_stemmer`` (default
  true). rouge-score's tokenizer keeps ASCII letters and digits only.
- ``exact_match`` (OpenRubricRL's ``accuracy``): 1.0 when the submission equals a
  reference, else 0.0. By default both sides are compared after Unicode NFKC,
  case folding, trimming, collapsing whitespace and dropping trailing ``.``/``!``;
  ``config.normalize: false`` compares the exact strings.

sacrebleu and rouge-score come with the ``hybrid`` extra; without them the metric
is an error naming the extra to install.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from .._errors import missing_extra
from ._base import MetricError, MetricInput, MetricValue

__all__ = ["bleu", "chrf", "exact_match", "normalize_answer", "rouge", "rouge_variant"]

ROUGE_VARIANTS = ("rouge1", "rouge2", "rougeL", "rougeLsum")


def _sacrebleu() -> Any:
    try:
        from sacrebleu import metrics
    except ImportError:
        raise missing_extra("hybrid", "BLEU and chrF need sacrebleu", MetricError) from None
    return metrics


def _flag(inp: MetricInput, key: str, default: bool) -> bool:
    value = inp.config.get(key, default)
    if not isinstance(value, bool):
        raise MetricError(f"metric {inp.name!r}: config.{key} is {value!r}; use true or false")
    return value


def bleu(inp: MetricInput) -> MetricValue:
    """Sentence BLEU against the references, divided by 100."""
    refs = list(inp.need_references())
    metrics = _sacrebleu()
    tokenize = str(inp.config.get("tokenize", "13a"))
    try:
        scorer = metrics.BLEU(
            effective_order=True, tokenize=tokenize, lowercase=_flag(inp, "lowercase", False)
        )
    except Exception as e:  # sacrebleu raises plain errors for an unknown tokenizer
        raise MetricError(f"metric {inp.name!r}: {e}") from None
    result = scorer.sentence_score(inp.prediction, refs)
    return MetricValue(value=min(1.0, result.score / 100.0), raw=result.score)


def chrf(inp: MetricInput) -> MetricValue:
    """Sentence chrF (chrF++ with ``word_order: 2``) against the references, divided by 100."""
    refs = list(inp.need_references())
    metrics = _sacrebleu()
    order = inp.config.get("word_order", 0)
    if order not in (0, 1, 2):
        raise MetricError(f"metric {inp.name!r}: config.word_order {order!r} is not 0, 1 or 2")
    scorer = metrics.CHRF(word_order=order, lowercase=_flag(inp, "lowercase", False))
    result = scorer.sentence_score(inp.prediction, refs)
    return MetricValue(value=min(1.0, result.score / 100.0), raw=result.score)


def rouge_variant(name: str) -> Any:
    """A metric function for one ROUGE variant (``rouge1``, ``rouge2``, ``rougeL``...)."""

    def metric(inp: MetricInput) -> MetricValue:
        return _rouge(inp, name)

    metric.__name__ = name
    metric.__doc__ = f"{name} F-measure against the references (best over the references)."
    return metric


def rouge(inp: MetricInput) -> MetricValue:
    """ROUGE F-measure; the variant comes from ``config.variant`` (default ``rougeL``)."""
    return _rouge(inp, str(inp.config.get("variant", "rougeL")))


def _rouge(inp: MetricInput, variant: str) -> MetricValue:
    if variant not in ROUGE_VARIANTS:
        raise MetricError(
            f"metric {inp.name!r}: ROUGE variant {variant!r} is unknown; use one of "
            + ", ".join(repr(v) for v in ROUGE_VARIANTS)
        )
    refs = list(inp.need_references())
    try:
        from rouge_score import rouge_scorer  # type: ignore[import-untyped]
    except ImportError:
        raise missing_extra("hybrid", "ROUGE needs rouge-score", MetricError) from None
    scorer = rouge_scorer.RougeScorer([variant], use_stemmer=_flag(inp, "use_stemmer", True))
    score = scorer.score_multi(refs, inp.prediction)[variant]
    details = {"precision": score.precision, "recall": score.recall, "variant": variant}
    return MetricValue(value=float(score.fmeasure), raw=float(score.fmeasure), details=details)


def normalize_answer(text: str) -> str:
    """NFKC, case-folded, trimmed, whitespace collapsed, trailing ``.``/``!`` dropped."""
    folded = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    return folded.rstrip(".!").rstrip()


def exact_match(inp: MetricInput) -> MetricValue:
    """1.0 when the submission matches a reference (normalised by default), else 0.0."""
    refs = list(inp.need_references())
    if _flag(inp, "normalize", True):
        pred = normalize_answer(inp.prediction)
        hit = any(pred == normalize_answer(r) for r in refs)
    else:
        hit = any(inp.prediction == r for r in refs)
    return MetricValue(value=1.0 if hit else 0.0, raw=1.0 if hit else 0.0)
