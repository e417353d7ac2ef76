"""Sending a request's images and documents in each provider's wire format, within a budget.

The user message becomes the shared prefix (``user[:shared_prefix_chars]``), then
each part introduced by a text line naming it (``[image 1] chart.png, PNG 640x480``),
then the rest of the prompt: the parts are part of what every call about one
submission shares, so providers' prompt caches still reuse it.

A judge's :class:`MediaBudget` bounds what one request carries. An image with more
pixels (or bytes) than the budget allows is downscaled with Pillow (the ``media``
extra) and its line says so (``downscaled from 4000x3000 to 1568x1176``); a part that
cannot be made to fit, or past the count or total bytes, is left out and a line says
that instead. Nothing is left out or shrunk without the judge being told, and a
warning is logged once per part.

OpenAI: ``{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}``
and ``{"type": "file", "file": {"filename": ..., "file_data": "data:application/pdf;
base64,..."}}``. Anthropic: ``image`` and ``document`` blocks with a ``base64``
source (``media_type``, ``data``).
"""

from __future__ import annotations

import io
import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._conversations._media_part import MediaPart, image_size, sniff
from ._base import JudgeRequest, MediaBudget

__all__ = [
    "DEFAULT_BUDGET",
    "anthropic_content",
    "fit_media",
    "openai_content",
]

_log = logging.getLogger("rubricjudge.judges")


DEFAULT_BUDGET = MediaBudget()


@dataclass(frozen=True)
class Fitted:
    """One part as sent: the line that introduces it, and the part (None when left out)."""

    line: str
    part: MediaPart | None


_CACHE: OrderedDict[tuple[str, MediaBudget], MediaPart | str] = OrderedDict()
_CACHE_LOCK = threading.Lock()
_WARNED: set[tuple[str, str]] = set()


def _downscale(part: MediaPart, budget: MediaBudget) -> MediaPart | str:
    """``part`` shrunk to the budget, or why it cannot be (text)."""
    try:
        from PIL import Image
    except ImportError:
        return "Pillow is not installed to downscale it (pip install 'rubricjudge[media]')"
    try:
        with Image.open(io.BytesIO(part.data)) as img:
            img.load()
            w, h = img.size
            scale = 1.0
            if budget.max_pixels is not None and w * h > budget.max_pixels:
                scale = (budget.max_pixels / (w * h)) ** 0.5
            fmt = "JPEG" if part.media_type == "image/jpeg" else "PNG"
            for _ in range(8):  # smaller until the bytes fit too
                size = (max(1, int(w * scale)), max(1, int(h * scale)))
                small = img.convert("RGB" if fmt == "JPEG" else "RGBA").resize(
                    size, Image.Resampling.LANCZOS
                )
                out = io.BytesIO()
                small.save(out, format=fmt, **({"quality": 85} if fmt == "JPEG" else {}))
                data = out.getvalue()
                if budget.max_image_bytes is None or len(data) <= budget.max_image_bytes:
                    break
                scale *= 0.7
            else:
                return "it does not fit the byte budget even when downscaled"
    except Exception as e:  # a corrupt image: Pillow raises many kinds
        return f"it could not be decoded to downscale it ({type(e).__name__})"
    media_type = sniff(data) or part.media_type
    dims = image_size(data, media_type)
    return MediaPart(
        kind="image",
        media_type=media_type,
        data=data,
        name=part.name,
        number=part.number,
        width=dims[0] if dims else None,
        height=dims[1] if dims else None,
    )


def _shrunk(part: MediaPart, budget: MediaBudget) -> MediaPart | str:
    key = (part.sha256, budget)
    with _CACHE_LOCK:
        got = _CACHE.get(key)
        if got is not None:
            _CACHE.move_to_end(key)
            return got
    got = _downscale(part, budget)
    with _CACHE_LOCK:
        _CACHE[key] = got
        while len(_CACHE) > 64:
            _CACHE.popitem(last=False)
    return got


def _warn(part: MediaPart, what: str) -> None:
    key = (part.sha256, what)
    if key not in _WARNED:
        _WARNED.add(key)
        _log.warning("%s: %s", part.describe(), what)


def _over(part: MediaPart, budget: MediaBudget) -> bool:
    if part.kind != "image":
        return False
    pixels = (part.width or 0) * (part.height or 0)
    too_many = budget.max_pixels is not None and pixels > budget.max_pixels
    too_big = budget.max_image_bytes is not None and len(part.data) > budget.max_image_bytes
    return too_many or too_big


def fit_media(media: Sequence[MediaPart], budget: MediaBudget) -> list[Fitted]:
    """Each part as it will be sent, with the line that introduces it (see the module doc)."""
    out: list[Fitted] = []
    total = 0
    for k, part in enumerate(media):
        head = f"{part.placeholder} {part.describe().split(' (', 1)[-1].rstrip(')')}"
        if budget.max_parts is not None and k >= budget.max_parts:
            why = f"left out: over this judge's budget of {budget.max_parts} parts a request"
            _warn(part, why)
            out.append(Fitted(f"{head} ({why}):", None))
            continue
        sent: MediaPart | None = part
        note = ""
        if _over(part, budget):
            got = _shrunk(part, budget)
            if isinstance(got, str):
                sent, note = None, f"left out: over this judge's image budget and {got}"
            else:
                sent = got
                note = (
                    f"downscaled from {part.width}x{part.height} to {got.width}x{got.height} "
                    "to fit this judge's budget"
                )
        elif (
            part.kind == "document"
            and budget.max_document_bytes is not None
            and len(part.data) > budget.max_document_bytes
        ):
            sent = None
            note = f"left out: over this judge's budget of {budget.max_document_bytes:,} bytes"
        if sent is not None and budget.max_total_bytes is not None:
            if total + len(sent.data) > budget.max_total_bytes:
                sent = None
                note = (
                    f"left out: the request would be over this judge's budget of "
                    f"{budget.max_total_bytes:,} bytes of images and documents"
                )
        if sent is not None:
            total += len(sent.data)
        if note:
            _warn(part, note)
        out.append(Fitted(f"{head}" + (f" ({note})" if note else "") + ":", sent))
    return out


def _split(request: JudgeRequest) -> tuple[str, str]:
    n = max(0, min(request.shared_prefix_chars, len(request.user)))
    return request.user[:n], request.user[n:]


def openai_content(request: JudgeRequest, budget: MediaBudget) -> list[dict[str, Any]]:
    """The user message's content parts in OpenAI's chat-completions form."""
    head, rest = _split(request)
    out: list[dict[str, Any]] = []
    if head:
        out.append({"type": "text", "text": head})
    for fitted in fit_media(request.media, budget):
        out.append({"type": "text", "text": fitted.line})
        part = fitted.part
        if part is None:
            continue
        if part.kind == "image":
            out.append({"type": "image_url", "image_url": {"url": part.data_url}})
        else:
            name = part.name.rsplit("/", 1)[-1] if part.name else f"document-{part.number}.pdf"
            out.append({"type": "file", "file": {"filename": name, "file_data": part.data_url}})
    if rest:
        out.append({"type": "text", "text": rest})
    return out


def anthropic_content(
    request: JudgeRequest, budget: MediaBudget, cache_control: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The user message's content blocks in Anthropic's form.

    ``cache_control`` marks the end of the shared part (the last part's block), so
    the prompt cache holds the images too.
    """
    head, rest = _split(request)
    out: list[dict[str, Any]] = []
    if head:
        out.append({"type": "text", "text": head})
    for fitted in fit_media(request.media, budget):
        out.append({"type": "text", "text": fitted.line})
        part = fitted.part
        if part is None:
            continue
        source = {"type": "base64", "media_type": part.media_type, "data": part.base64}
        out.append({"type": part.kind, "source": source})
    if cache_control is not None and rest and out:
        out[-1] = {**out[-1], "cache_control": dict(cache_control)}
    if rest:
        out.append({"type": "text", "text": rest})
    return out
