"""An image or document in what is graded: its bytes, their type and their size.

The type is decided by the bytes (PNG, JPEG, GIF, WebP, PDF), never by a file's
extension or a declared media type. How parts are written in a submission and how
they are read is ``_media_source``; what a page shows of them is ``_pages._media_view``.
"""

from __future__ import annotations

import base64
import hashlib
import os
import struct
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "DOCUMENT_TYPES",
    "FORMAT_NAMES",
    "IMAGE_TYPES",
    "MediaKind",
    "MediaPart",
    "MediaProblem",
    "image_size",
    "sniff",
]

MediaKind = Literal["image", "document"]
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
DOCUMENT_TYPES = ("application/pdf",)
FORMAT_NAMES = {
    "image/png": "PNG",
    "image/jpeg": "JPEG",
    "image/gif": "GIF",
    "image/webp": "WebP",
    "application/pdf": "PDF",
}


class MediaProblem(ValueError):
    """A part that cannot be read; the reader adds where it is."""


def sniff(data: bytes) -> str | None:
    """The media type the bytes are (PNG, JPEG, GIF, WebP or PDF), or None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[:1024].lstrip(b"\x00\t\n\r ").startswith(b"%PDF-"):
        return "application/pdf"
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack(">HH", data[i + 5 : i + 9])
            return w, h
        i += 2 + length
    return None


def image_size(data: bytes, media_type: str) -> tuple[int, int] | None:
    """(width, height) read from an image's header, or None when the header is not readable."""
    try:
        if media_type == "image/png" and data[12:16] == b"IHDR":
            w, h = struct.unpack(">II", data[16:24])
            return w, h
        if media_type == "image/gif":
            w, h = struct.unpack("<HH", data[6:10])
            return w, h
        if media_type == "image/jpeg":
            return _jpeg_size(data)
        if media_type == "image/webp":
            chunk = data[12:16]
            if chunk == b"VP8X":
                w = int.from_bytes(data[24:27], "little") + 1
                h = int.from_bytes(data[27:30], "little") + 1
                return w, h
            if chunk == b"VP8L":
                bits = int.from_bytes(data[21:25], "little")
                return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
            if chunk == b"VP8 ":
                w, h = struct.unpack("<HH", data[26:30])
                return w & 0x3FFF, h & 0x3FFF
    except struct.error:
        return None
    return None


@dataclass(frozen=True)
class MediaPart:
    """One image or document: its bytes, their type (from the bytes) and where it came from.

    ``name`` is the path or URL it was read from ("" for inline data); ``number`` is
    its place among its submission's parts (1-based), which the text's ``[image N]``
    names; ``owner`` is ``"reference"`` for a reference submission's parts, whose
    placeholders say so (``[reference image 1]``). ``sha256`` identifies the bytes:
    caches and fingerprints use it, so the same image under another name is the same
    part.
    """

    kind: MediaKind
    media_type: str
    data: bytes = field(repr=False)
    name: str = ""
    number: int = 1
    width: int | None = None
    height: int | None = None
    owner: str = ""
    sha256: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sha256", hashlib.sha256(self.data).hexdigest())

    @property
    def base64(self) -> str:
        """The bytes as base64 text."""
        return base64.b64encode(self.data).decode("ascii")

    @property
    def data_url(self) -> str:
        """A ``data:`` URL of the bytes."""
        return f"data:{self.media_type};base64,{self.base64}"

    @property
    def placeholder(self) -> str:
        """What the text shows where the part stood: ``[image 1]``."""
        owner = f"{self.owner} " if self.owner else ""
        return f"[{owner}{self.kind} {self.number}]"

    @property
    def format_name(self) -> str:
        """PNG, JPEG, GIF, WebP or PDF."""
        return FORMAT_NAMES.get(self.media_type, self.media_type)

    def describe(self) -> str:
        """``image 1 (chart.png, PNG 640x480, 12,345 bytes)``: for prompts and messages."""
        facts = [self.format_name]
        if self.width and self.height:
            facts[0] += f" {self.width}x{self.height}"
        facts.append(f"{len(self.data):,} bytes")
        if self.name and not self.name.startswith("data:"):
            facts.insert(0, os.path.basename(self.name.rstrip("/")) or self.name)
        owner = f"{self.owner} " if self.owner else ""
        return f"{owner}{self.kind} {self.number} ({', '.join(facts)})"

    def record(self) -> dict[str, Any]:
        """What reports keep about the part: no bytes, their hash."""
        out: dict[str, Any] = {
            "kind": self.kind,
            "media_type": self.media_type,
            "bytes": len(self.data),
            "sha256": self.sha256,
        }
        if self.name and not self.name.startswith("data:"):
            out["name"] = self.name
        if self.width is not None:
            out["width"], out["height"] = self.width, self.height
        return out

    def to_part(self) -> dict[str, Any]:
        """The part as a dataset file holds it inline (``data`` in base64): reads back the same."""
        out: dict[str, Any] = {"type": self.kind, "data": self.base64}
        if self.name and not self.name.startswith("data:"):
            out["name"] = self.name
        return out
