"""Readability: the Flesch reading ease of the submission, mapped onto [0, 1].

Flesch reading ease (Flesch, 1948)::

    FRE = 206.835 - 1.015 * (words / sentences) - 84.6 * (syllables / words)

Counting:

- words: runs of letters, with inner apostrophes (``don't`` is one word); digits
  and symbols are not words. Text without a word cannot be scored (an error).
- sentences: runs of text ended by ``.``, ``!`` or ``?`` (a run of them counts
  once) plus a last unterminated run; at least one.
- syllables (a heuristic; English has no exact rule): accents are stripped and
  the word lower-cased; a word of 3 letters or fewer has 1; otherwise a final
  ``es`` after a consonant other than ``l`` is dropped (``hopes``; ``tables`` keeps
  it), a final ``ed`` after a consonant other than ``l``, ``d``, ``t`` is dropped
  (``jumped``; ``needed`` keeps it), a silent final ``e`` after a consonant other
  than ``l`` is dropped (``hope``; ``table`` keeps it), a leading ``y`` is dropped,
  and each run of vowels (``a e i o u y``) is one syllable; at least 1.

Mapping: ``value = min(100, max(0, FRE)) / 100``, so 100 and above (very easy
text) is 1.0 and 0 and below (very hard text) is 0.0; ``raw`` keeps the FRE.
OpenRubricRL's ``type: custom`` with ``config.metric_function: flesch_reading_ease``
is this metric.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ._base import MetricError, MetricInput, MetricValue

__all__ = ["TextCounts", "count_syllables", "flesch_reading_ease", "readability", "text_counts"]

_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)*")
_SENTENCE_END = re.compile(r"[.!?]+")
_SUFFIX = re.compile(r"(?:(?<=[^laeiouy])es|(?<=[^laeiouydt])ed|(?<=[^laeiouy])e)$")
_VOWELS = re.compile(r"[aeiouy]+")


def count_syllables(word: str) -> int:
    """Syllables in one word, by the heuristic in this module's docstring."""
    plain = unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode("ascii")
    w = re.sub(r"[^a-z]", "", plain.lower())
    if len(w) <= 3:
        return 1
    w = _SUFFIX.sub("", w)
    w = w[1:] if w.startswith("y") else w
    return max(1, len(_VOWELS.findall(w)))


@dataclass(frozen=True)
class TextCounts:
    """Words, sentences and syllables of a text."""

    words: int
    sentences: int
    syllables: int


def text_counts(text: str) -> TextCounts:
    """Count words, sentences and syllables as the module docstring describes."""
    words = _WORD.findall(text)
    pieces = [p for p in _SENTENCE_END.split(text) if _WORD.search(p)]
    return TextCounts(
        words=len(words),
        sentences=max(1, len(pieces)),
        syllables=sum(count_syllables(w) for w in words),
    )


def flesch_reading_ease(text: str) -> float:
    """The Flesch reading ease of ``text`` (unbounded; about 0-100 for normal prose).

    Raises:
        MetricError: the text has no words.
    """
    c = text_counts(text)
    if c.words == 0:
        raise MetricError("readability needs text with words; the submission has none")
    return 206.835 - 1.015 * (c.words / c.sentences) - 84.6 * (c.syllables / c.words)


def readability(inp: MetricInput) -> MetricValue:
    """Flesch reading ease of the submission, clamped to [0, 100] and divided by 100."""
    c = text_counts(inp.prediction)
    fre = flesch_reading_ease(inp.prediction)
    details = {"words": c.words, "sentences": c.sentences, "syllables": c.syllables}
    return MetricValue(value=min(100.0, max(0.0, fre)) / 100.0, raw=fre, details=details)
