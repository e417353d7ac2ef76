"""Text as the evidence check compares it: normalised words and where clauses end.

Quote and submission are normalised the same way (:func:`normalise`): NFKD
(full-width ``ＩＤＩＯＴ`` is ``IDIOT``), combining marks and format characters
(zero-width spaces, Unicode categories Mn and Cf) removed, letters of other scripts
that look Latin folded to it (Cyrillic ``а``, Greek ``Ι``: "іdіоt" is "idiot"), case
folded, ``n't`` read as `` not``, then cut into words (runs of letters and digits;
punctuation and spacing do not count). The matching itself is in ``_evidence``.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = [
    "CLAUSE",
    "NEGATIONS",
    "NOT_NEGATIONS",
    "PAD",
    "SENTENCE",
    "STOPWORDS",
    "encode",
    "normalise",
    "words",
    "words_and_breaks",
]

_WORD = re.compile(r"\w+")
_BASE = 0x20000  # words become characters from here on (no surrogates above it)
PAD = chr(_BASE - 1)  # a word no text has
_SENTENCE = re.compile(r"[.!?;\n\r\u2026]")
_CLAUSE = re.compile(r"[:,()\[\]\u2013\u2014]")
CLAUSE, SENTENCE = 1, 2
_NOT = re.compile(r"n['\u2019]t\b")

# Letters of other scripts drawn like Latin ones ("іdіоt" with Cyrillic і and о), folded
# to the Latin letter before comparing, in quote and submission alike. Upper and lower
# case apart: Greek Η looks like H, η like n.
_LOOKALIKES = str.maketrans(
    # Cyrillic
    "АВЕКМНОРСТХУЅІЈӀԁԛԝаеорсухѕіјһӏ"
    # Greek
    "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧαικνορυχ"
    # Armenian, Latin alpha and dotless i
    "օսհոզɑıɡ",
    "ABEKMHOPCTXYSIJIdqwaeopcyxsijhlABEZHIKMNOPTYXaikvopuxouhnqaig",
)

NEGATIONS = frozenset(
    {
        "not",
        "no",
        "never",
        "nor",
        "neither",
        "none",
        "nothing",
        "nobody",
        "nowhere",
        "without",
        "cannot",
    }
)
"""Words that turn what follows around ("n't" is read as "not")."""
NOT_NEGATIONS = frozenset({("no", "doubt"), ("not", "only"), ("not", "just"), ("no", "wonder")})
STOPWORDS = frozenset(
    """a an the and or but if then so than that this these those there here of to in on at
    by for from with as into onto about over under up down out off is are was were be been
    being am do does did doing has have had having it its they them their he him his
    she her we us our you your i me my which who whom whose what when where why how because
    since while also too very just can could will would shall should may might must all any
    each some such both either more most other same own only s t""".split()
)
"""Words that carry no content: a loose quote must match the others."""


def normalise(text: str) -> str:
    """``text`` compared as words: compatibility forms, marks and look-alikes folded.

    NFKD (full-width ``ＩＤＩＯＴ`` is ``IDIOT``), without combining marks (``ì`` is
    ``i``) or format characters (zero-width spaces...), letters of other scripts that
    look Latin folded to it (Cyrillic ``а`` is ``a``), case-folded, ``n't`` read as
    `` not``, then NFKC.
    """
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if unicodedata.category(c) not in ("Mn", "Cf"))
    text = text.translate(_LOOKALIKES).casefold()
    text = _NOT.sub(" not", text)
    return unicodedata.normalize("NFKC", text)


def words(text: str) -> list[str]:
    """The words of ``text`` once normalised."""
    return _WORD.findall(normalise(text))


def words_and_breaks(text: str) -> tuple[list[str], list[int]]:
    """The words of ``text`` and, per word, what ends before it.

    ``SENTENCE`` (2) at the start of the text and after . ! ? ; or a line break,
    ``CLAUSE`` (1) after a comma, colon, bracket or dash, else 0. The list has one
    more entry than the words: the end of the text (a sentence end).
    """
    norm = normalise(text)
    found = list(_WORD.finditer(norm))
    breaks = [SENTENCE]
    for before, after in zip(found, found[1:], strict=False):
        gap = norm[before.end() : after.start()]
        breaks.append(SENTENCE if _SENTENCE.search(gap) else CLAUSE if _CLAUSE.search(gap) else 0)
    breaks[len(found) :] = [SENTENCE] * (len(found) + 1 - len(breaks))
    return [m.group() for m in found], breaks


def encode(tokens: list[str], vocab: dict[str, str]) -> str:
    """One character per word, the same character for the same word."""
    room = 0x10FFFF - _BASE
    return "".join(vocab.setdefault(w, chr(_BASE + len(vocab) % room)) for w in tokens)
