"""Shared helpers for the sources of benchmarks/data/authored_science.json.

Written by the rubricjudge developers (MIT, like the project). A question has three
positive criteria, optionally a penalty (a fault: MET means the answer commits it)
and optionally one multi-choice criterion. Each answer is labelled on every leaf:
``labels`` is one letter per binary leaf, in order (``M`` MET, ``U`` UNMET), and
``choice`` the option label of the multi-choice criterion (None: not labelled).

``kind`` says what the answer is, for reporting:

* ``explicit``: correct, complete, in textbook wording;
* ``informal``: correct in a student's own words (paraphrase, slang, misspellings);
* ``partial``: some of the content criteria, nothing wrong;
* ``wrong``: confidently wrong (usually commits the penalty);
* ``offtopic``: true statements about something else, or no answer at all.
"""

from __future__ import annotations

from typing import Any

KINDS = ("explicit", "informal", "partial", "wrong", "offtopic")


def A(kind: str, labels: str, text: str, choice: str | None = None) -> dict[str, Any]:
    """One labelled answer."""
    assert kind in KINDS, kind
    assert set(labels) <= {"M", "U"}, labels
    return {"kind": kind, "labels": labels, "text": text, "choice": choice}


def ordinal(requirement: str, labels: list[str]) -> dict[str, Any]:
    """A multi-choice criterion whose options earn evenly spaced credit from 0 to 1."""
    n = len(labels) - 1
    return {
        "requirement": requirement,
        "scale_type": "ordinal",
        "options": [(label, round(i / n, 4)) for i, label in enumerate(labels)],
    }


def nominal(requirement: str, options: list[tuple[str, float]]) -> dict[str, Any]:
    """A multi-choice criterion of unordered options, each with its own credit."""
    return {"requirement": requirement, "scale_type": "nominal", "options": options}


TWO = ["Neither", "One", "Both"]
THREE = ["None", "One or two", "All three"]
