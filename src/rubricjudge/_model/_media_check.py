"""Exact checks on a submission's images and documents, decided without a judge.

A criterion whose ``scoring_method`` is ``{type: media, media: {...}}`` is decided by
one :class:`MediaCheck`: MET when it holds for every part it looks at, UNMET when it
does not (on a penalty, MET means the fault is there, as everywhere). The checks
(``_methods._media`` runs them):

* ``image_format``: the image is one of ``formats`` (``PNG``, ``JPEG``, ``GIF``,
  ``WebP``), as its bytes say;
* ``image_size``: its width and height are within ``min_width`` / ``max_width`` /
  ``min_height`` / ``max_height`` (pixels, bounds included);
* ``pdf_pages``: the PDF has between ``min_pages`` and ``max_pages`` pages;
* ``pdf_text``: the PDF's text (extracted with pypdf, the ``media`` extra) contains
  ``phrase`` (ignoring case and runs of white space unless ``case_sensitive``).

``part`` picks one part by its number (``[image 2]`` is part 2); without it every
image (for the image checks) or every document (for the PDF checks) must pass. A
submission without such a part cannot be checked: a recorded failure, never a verdict.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["IMAGE_FORMATS", "MEDIA_CHECKS", "MediaCheck", "MediaCheckName", "media_problem"]

MediaCheckName = Literal["image_format", "image_size", "pdf_pages", "pdf_text"]
MEDIA_CHECKS: tuple[MediaCheckName, ...] = ("image_format", "image_size", "pdf_pages", "pdf_text")
IMAGE_FORMATS = ("PNG", "JPEG", "GIF", "WebP")
_NEEDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "image_format": (("formats",), ()),
    "image_size": ((), ("min_width", "max_width", "min_height", "max_height")),
    "pdf_pages": ((), ("min_pages", "max_pages")),
    "pdf_text": (("phrase",), ("case_sensitive",)),
}
_FIELDS = (
    "formats",
    "min_width",
    "max_width",
    "min_height",
    "max_height",
    "min_pages",
    "max_pages",
    "phrase",
)


class MediaCheck(BaseModel):
    """One exact check on a submission's images or documents (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    check: MediaCheckName = Field(description="Which check: " + ", ".join(MEDIA_CHECKS))
    part: int | None = Field(
        default=None, ge=1, description="The part to check, by number; every one when absent."
    )
    formats: list[str] | None = Field(
        default=None, min_length=1, description="image_format: PNG, JPEG, GIF or WebP."
    )
    min_width: int | None = Field(default=None, ge=0)
    max_width: int | None = Field(default=None, ge=0)
    min_height: int | None = Field(default=None, ge=0)
    max_height: int | None = Field(default=None, ge=0)
    min_pages: int | None = Field(default=None, ge=0)
    max_pages: int | None = Field(default=None, ge=0)
    phrase: str | None = Field(
        default=None, min_length=1, description="pdf_text: what the text must contain."
    )
    case_sensitive: bool = False

    @property
    def kind(self) -> Literal["image", "document"]:
        """The kind of part the check looks at."""
        return "image" if self.check.startswith("image") else "document"

    def describe(self) -> str:
        """The check in words (for notes in reports)."""
        which = f"{self.kind} {self.part}" if self.part else f"every {self.kind}"
        if self.check == "image_format":
            return f"{which} is {' or '.join(self.formats or [])}"
        if self.check == "image_size":
            bounds = [
                f"{name} {op} {value}"
                for name, op, value in (
                    ("width", ">=", self.min_width),
                    ("width", "<=", self.max_width),
                    ("height", ">=", self.min_height),
                    ("height", "<=", self.max_height),
                )
                if value is not None
            ]
            return f"{which} has {' and '.join(bounds)} pixels"
        if self.check == "pdf_pages":
            bounds = [
                f"{op} {value}"
                for op, value in ((">=", self.min_pages), ("<=", self.max_pages))
                if value is not None
            ]
            return f"{which} has {' and '.join(bounds)} pages"
        return f"{which}'s text contains {self.phrase!r}"


def media_problem(check: MediaCheck) -> str | None:
    """What is wrong with ``check``'s fields for its kind of check, or None."""
    needs, may = _NEEDS[check.check]
    for name in needs:
        if getattr(check, name) is None:
            return f"the check {check.check!r} needs {name!r}; add it"
    for name in _FIELDS:
        if name not in needs and name not in may and getattr(check, name) is not None:
            return f"the check {check.check!r} takes no {name!r}; remove it"
    if check.check in ("image_size", "pdf_pages") and all(getattr(check, n) is None for n in may):
        return f"the check {check.check!r} needs at least one of " + ", ".join(may)
    for fmt in check.formats or []:
        if fmt.lower() not in {f.lower() for f in IMAGE_FORMATS}:
            return f"{fmt!r} is not an image format; use " + ", ".join(IMAGE_FORMATS)
    return None
