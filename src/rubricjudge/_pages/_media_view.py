"""What a page (the HTML report, the label page) shows of images and documents."""

from __future__ import annotations

import base64
from typing import Any

from .._conversations._media_part import MediaPart

__all__ = ["INLINE_LIMIT", "THUMBNAIL_SIDE", "media_view", "thumbnail"]

THUMBNAIL_SIDE = 192
"""The longest side of a thumbnail in the report and the label page, in pixels."""
INLINE_LIMIT = 64 * 1024
"""The largest image shown as it is when Pillow is not there to make a thumbnail."""


def thumbnail(part: MediaPart, side: int = THUMBNAIL_SIDE) -> str | None:
    """A small ``data:`` URL of an image for a page, or None when it cannot be made small.

    Pillow (the ``media`` extra) shrinks it to ``side`` pixels at most; without
    Pillow an image is shown as it is only up to :data:`INLINE_LIMIT` bytes.
    """
    if part.kind != "image":
        return None
    small = part.width is not None and part.height is not None and max(part.width, part.height)
    if small and small <= side and len(part.data) <= INLINE_LIMIT:
        return part.data_url
    try:
        import io

        from PIL import Image
    except ImportError:
        return part.data_url if len(part.data) <= INLINE_LIMIT else None
    try:
        with Image.open(io.BytesIO(part.data)) as img:
            img.thumbnail((side, side))
            jpeg = part.media_type == "image/jpeg"
            out = io.BytesIO()
            if jpeg:
                img.convert("RGB").save(out, format="JPEG", quality=80)
            else:
                img.convert("RGBA").save(out, format="PNG", optimize=True)
    except Exception:  # a corrupt image: Pillow raises many kinds; the page shows its label
        return None
    data = out.getvalue()
    kind = "image/jpeg" if jpeg else "image/png"
    return f"data:{kind};base64,{base64.b64encode(data).decode('ascii')}"


def media_view(parts: tuple[MediaPart, ...] | list[MediaPart]) -> list[dict[str, Any]]:
    """What a page shows of each part: its label and, for an image, a thumbnail."""
    out: list[dict[str, Any]] = []
    for part in parts:
        row: dict[str, Any] = {"label": part.describe(), "kind": part.kind}
        src = thumbnail(part)
        if src is not None:
            row["src"] = src
        out.append(row)
    return out
