"""Exact checks on images and documents (no judge), and Python judges that see the parts."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from rubricjudge import Rubric
from rubricjudge._conversations._media_part import MediaPart
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge.errors import RubricError
from tests.support.media_helpers import pdf, png

B64 = base64.b64encode


def image(width: int, height: int) -> dict[str, Any]:
    return {"type": "image", "data": B64(png(width, height)).decode()}


def document(*pages: str) -> dict[str, Any]:
    return {"type": "document", "data": B64(pdf(list(pages))).decode(), "name": "r.pdf"}


def rubric(*checks: dict[str, Any]) -> Rubric:
    return Rubric.from_dict(
        {
            "format": "rubricjudge/1",
            "criteria": [
                {
                    "name": f"c{k}",
                    "requirement": f"check {k}",
                    "weight": 1,
                    "scoring_method": {"type": "media", "media": check},
                }
                for k, check in enumerate(checks)
            ],
        }
    )


def verdicts(r: Rubric, submission: Any) -> list[tuple[str, list[str], str | None]]:
    report = CriterionGrader("fake").grade_sync(r, submission)
    return [(c.verdict.value if c.verdict else "", c.evidence, c.error) for c in report.report]


def test_image_format_and_size_are_read_from_the_bytes() -> None:
    r = rubric(
        {"check": "image_format", "formats": ["JPEG", "png"]},
        {"check": "image_size", "min_width": 30, "max_height": 20},
        {"check": "image_size", "part": 2, "min_width": 30},
    )
    sub = [image(40, 20), image(20, 20)]
    assert verdicts(r, sub) == [
        ("MET", ["image 1: PNG", "image 2: PNG"], None),
        ("UNMET", ["image 1: 40x20 pixels", "image 2: 20x20 pixels"], None),  # every image
        ("UNMET", ["image 2: 20x20 pixels"], None),
    ]


def test_pdf_page_count_and_text_with_pypdf() -> None:
    r = rubric(
        {"check": "pdf_pages", "min_pages": 2, "max_pages": 2},
        {"check": "pdf_text", "phrase": "revenue   GREW"},
        {"check": "pdf_text", "phrase": "revenue GREW", "case_sensitive": True},
        {"check": "pdf_text", "phrase": "losses"},
    )
    sub = [document("Summary", "Revenue grew in Q3")]
    got = verdicts(r, sub)
    assert [v for v, _, _ in got] == ["MET", "MET", "UNMET", "UNMET"]
    assert got[0][1] == ["document 1: 2 pages"]
    assert got[1][1] == ["document 1: 2 pages, contains 'revenue   GREW'"]


def test_what_cannot_be_checked_is_a_recorded_failure_not_a_verdict() -> None:
    r = rubric(
        {"check": "image_size", "min_width": 1},
        {"check": "pdf_pages", "max_pages": 3, "part": 2},
        {"check": "pdf_text", "phrase": "x"},
    )
    broken = {"type": "document", "data": B64(b"%PDF-1.4\nnot a pdf at all").decode()}
    got = verdicts(r, [broken])
    assert [v for v, _, _ in got] == ["CANNOT_ASSESS"] * 3
    errors = [e or "" for _, _, e in got]
    assert errors[0] == "input: the submission holds no image to check"
    assert errors[1] == "input: the submission has no part 2 ([document 2])"
    assert errors[2].startswith("input: document 1 (") and "cannot be read as a PDF" in errors[2]
    wrong = verdicts(
        rubric({"check": "pdf_pages", "max_pages": 3, "part": 2}), [broken, image(2, 2)]
    )
    assert wrong[0][2] == (
        f"input: part 2 is image 2 (PNG 2x2, {len(png(2, 2))} bytes), not a document; the check "
        "'pdf_pages' "
        "reads a document"
    )


def test_bad_checks_are_refused_naming_the_criterion() -> None:
    with pytest.raises(
        RubricError, match=r"scoring_method\.media of criterion 'c0': .*needs 'phrase'"
    ):
        rubric({"check": "pdf_text"})
    with pytest.raises(RubricError, match=r"'BMP' is not an image format"):
        rubric({"check": "image_format", "formats": ["BMP"]})
    with pytest.raises(RubricError, match=r"'image_size' needs at least one of min_width"):
        rubric({"check": "image_size"})
    with pytest.raises(RubricError, match=r"'image_format' takes no 'phrase'"):
        rubric({"check": "image_format", "formats": ["PNG"], "phrase": "x"})


def test_a_python_judge_with_a_media_parameter_sees_the_parts() -> None:
    seen: list[tuple[MediaPart, ...]] = []

    def looks(system: str, user: str, media: tuple[MediaPart, ...] = ()) -> dict[str, str]:
        seen.append(media)
        return {"reason": "looked", "answer": "yes" if media[0].width == 40 else "no"}

    def reads(system: str, user: str) -> dict[str, str]:
        return {"reason": "read", "answer": "yes"}

    r = Rubric.from_dict({"criteria": [{"name": "wide", "requirement": "The image is wide"}]})
    report = CriterionGrader(looks, evidence="off").grade_sync(r, [image(40, 20)])
    assert report.report[0].verdict is not None and report.report[0].verdict.value == "MET"
    assert [p.width for p in seen[0]] == [40]
    blind = CriterionGrader(reads, evidence="off").grade_sync(r, [image(40, 20)])
    (cr,) = blind.report
    assert cr.is_error and "reads text only" in (cr.error or "")
    plain = CriterionGrader(reads, evidence="off").grade_sync(r, "a wide picture")
    assert plain.report[0].error is None  # text judges keep working on text


def test_few_shot_examples_with_images_are_refused() -> None:
    from rubricjudge.errors import ConfigError

    r = Rubric.from_dict({"criteria": [{"name": "wide", "requirement": "The image is wide"}]})
    example = {"submission": [image(4, 4)], "verdicts": ["MET"]}
    with pytest.raises(ConfigError, match=r"examples\[0\]\.submission holds images"):
        CriterionGrader("fake").grade_sync(r, "text", examples=[example])


def test_llm_decode_refuses_a_submission_with_images() -> None:
    r = Rubric.from_dict(
        {
            "format": "rubricjudge/1",
            "criteria": [
                {
                    "name": "d",
                    "requirement": "It is wide",
                    "weight": 1,
                    "scoring_method": {"type": "llm_decode", "decode_prompt": "Is it wide?"},
                }
            ],
        }
    )
    (cr,) = CriterionGrader("fake").grade_sync(r, [image(40, 20)]).report
    assert cr.is_error and "llm_decode sends the judge text only" in (cr.error or "")
