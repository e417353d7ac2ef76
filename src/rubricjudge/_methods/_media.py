"""The ``media`` method: exact checks on a submission's images and documents, no judge call.

The checks are described in ``_model._media_check``. The report's ``evidence`` names
each part checked and what was found (``image 1: PNG 240x120``); ``notes`` says the
check in words. A submission without the part the check looks at, a PDF that cannot
be read, or pypdf missing for a PDF check is a recorded error, priced by the
CANNOT_ASSESS strategy like any failure, never a verdict.
"""

from __future__ import annotations

import io
import re
from typing import Any

from .._conversations._media_part import MediaPart
from .._conversations._submission import Submission, to_submission
from .._model._media_check import MediaCheck
from .._model._reports import CriterionReport
from .._model._rubric import Criterion, CriterionVerdict, ScoringType
from ._levels import error_report, level_report

__all__ = ["run_media"]

_METHOD = ScoringType.MEDIA


class _CannotCheck(Exception):
    """Why a part cannot be checked (a recorded error, not a verdict)."""


def _pdf(part: MediaPart) -> Any:
    try:
        import pypdf
    except ImportError:
        raise _CannotCheck(
            "PDF checks need pypdf, which is not installed: pip install 'rubricjudge[media]'"
        ) from None
    try:
        return pypdf.PdfReader(io.BytesIO(part.data))
    except Exception as e:  # pypdf raises many kinds for a broken file
        raise _CannotCheck(f"{part.describe()} cannot be read as a PDF: {e}") from None


def _normal(text: str, case_sensitive: bool) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if case_sensitive else text.casefold()


def _holds(check: MediaCheck, part: MediaPart) -> tuple[bool, str]:
    """(whether ``check`` holds for ``part``, what was found)."""
    label = f"{part.kind} {part.number}"
    if check.check == "image_format":
        wanted = {f.lower() for f in check.formats or []}
        return part.format_name.lower() in wanted, f"{label}: {part.format_name}"
    if check.check == "image_size":
        if part.width is None or part.height is None:
            raise _CannotCheck(f"the size of {part.describe()} cannot be read from its header")
        w, h = part.width, part.height
        ok = (
            (check.min_width is None or w >= check.min_width)
            and (check.max_width is None or w <= check.max_width)
            and (check.min_height is None or h >= check.min_height)
            and (check.max_height is None or h <= check.max_height)
        )
        return ok, f"{label}: {w}x{h} pixels"
    reader = _pdf(part)
    try:
        pages = len(reader.pages)
        if check.check == "pdf_pages":
            ok = (check.min_pages is None or pages >= check.min_pages) and (
                check.max_pages is None or pages <= check.max_pages
            )
            return ok, f"{label}: {pages} pages"
        text = "\n".join(page.extract_text() or "" for page in reader.pages)
    except Exception as e:  # a page pypdf cannot parse
        raise _CannotCheck(f"{part.describe()} cannot be read as a PDF: {e}") from None
    assert check.phrase is not None
    found = _normal(check.phrase, check.case_sensitive) in _normal(text, check.case_sensitive)
    return found, f"{label}: {pages} pages, {'contains' if found else 'lacks'} {check.phrase!r}"


def run_media(criterion: Criterion, target: Any) -> CriterionReport:
    """Decide a ``media`` criterion on ``target`` (a submission, or what makes one)."""
    sm = criterion.scoring_method
    assert sm is not None and sm.media is not None
    check = sm.media
    sub = target if isinstance(target, Submission) else to_submission(target)
    parts = [p for p in sub.media if p.kind == check.kind]
    if check.part is not None:
        parts = [p for p in sub.media if p.number == check.part]
        if parts and parts[0].kind != check.kind:
            return error_report(
                criterion,
                _METHOD,
                f"part {check.part} is {parts[0].describe()}, not a {check.kind}; the check "
                f"{check.check!r} reads a {check.kind}",
                category="input",
                completion_cost=0.0,
            )
    if not parts:
        missing = (
            f"the submission has no part {check.part} ([{check.kind} {check.part}])"
            if check.part
            else f"the submission holds no {check.kind} to check"
        )
        return error_report(
            criterion,
            _METHOD,
            missing,
            category="input",
            completion_cost=0.0,
        )
    evidence: list[str] = []
    holds = True
    try:
        for part in parts:
            ok, found = _holds(check, part)
            holds = holds and ok
            evidence.append(found)
    except _CannotCheck as e:
        return error_report(criterion, _METHOD, str(e), category="input", completion_cost=0.0)
    verdict = CriterionVerdict.MET if holds else CriterionVerdict.UNMET
    notes = f"{check.describe()}: {'yes' if holds else 'no'}"
    return level_report(
        criterion, verdict, _METHOD, evidence=evidence, notes=notes, completion_cost=0.0
    )
