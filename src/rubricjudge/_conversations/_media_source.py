"""Images and documents in what is graded: content parts beside text.

A submission (or a conversation message) may be a list of parts::

    [{"type": "text", "text": "The chart:"},
     {"type": "image", "path": "charts/q3.png"},
     {"type": "document", "data": "<base64>", "name": "report.pdf"}]

An ``image`` or ``document`` part gives exactly one of ``path`` (a file, relative to
the dataset file's folder), ``url`` (a ``data:`` URL, or ``http(s)`` when URLs are
allowed) or ``data`` (base64). Conversations may also hold the parts in the shapes
the APIs write them: OpenAI's ``image_url`` and ``file`` parts, Anthropic's ``image``
and ``document`` blocks with a ``base64`` or ``url`` source.

The type is decided by the bytes (PNG, JPEG, GIF, WebP, PDF), never by a file's
extension or a declared media type; anything else is refused. Parts are numbered in
order within their submission and the text shows ``[image 1]`` where each stood, so
judges, reports and metrics that read text see where an image was.

Where paths are resolved, whether they may leave their folder and whether URLs are
fetched is a :class:`MediaSource`, set with :func:`media_source` by whatever reads a
file (the dataset loaders, ``grade``'s input). Without one, paths are relative to the
current directory and may go anywhere (the caller is the program itself), and URLs
are not fetched.
"""

from __future__ import annotations

import binascii
import contextlib
import os
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._media_part import (
    DOCUMENT_TYPES,
    FORMAT_NAMES,
    MediaKind,
    MediaPart,
    MediaProblem,
    image_size,
    sniff,
)

__all__ = [
    "MAX_PARTS",
    "MAX_PART_BYTES",
    "MediaCollector",
    "MediaSource",
    "current_source",
    "is_media_part",
    "media_source",
    "read_part",
]

MAX_PART_BYTES = 20 * 1024 * 1024
"""The largest image or document read (20 MiB), before any judge's own budget."""
MAX_PARTS = 20
"""The most images and documents one submission may hold."""
ALLOW_URLS_ENV = "RUBRICJUDGE_ALLOW_URLS"
MEDIA_ROOT_ENV = "RUBRICJUDGE_MEDIA_ROOT"


@dataclass(frozen=True)
class MediaSource:
    """Where parts' paths are resolved and what may be read.

    ``base`` is the folder relative paths start from (None: the current directory);
    ``root`` confines paths to a folder (None: anywhere). ``allow_urls`` lets
    ``http(s)`` URLs be fetched; ``allow_paths=False`` refuses every path (input that
    arrives over the network must not name the server's files).
    """

    base: Path | None = None
    root: Path | None = None
    allow_urls: bool = False
    max_part_bytes: int = MAX_PART_BYTES
    max_parts: int = MAX_PARTS
    allow_paths: bool = True


_SOURCE: ContextVar[MediaSource | None] = ContextVar("rubricjudge_media_source", default=None)


def current_source() -> MediaSource:
    """The source set by :func:`media_source`, else paths anywhere from the current directory.

    ``RUBRICJUDGE_ALLOW_URLS=1`` allows fetching URLs.
    """
    got = _SOURCE.get()
    if got is not None:
        return got
    allow = os.environ.get(ALLOW_URLS_ENV, "") in ("1", "true", "yes")
    return MediaSource(allow_urls=allow, max_part_bytes=MAX_PART_BYTES, max_parts=MAX_PARTS)


@contextlib.contextmanager
def media_source(
    file: str | os.PathLike[str] | None = None,
    *,
    root: str | os.PathLike[str] | None = None,
    allow_urls: bool | None = None,
    allow_paths: bool = True,
) -> Iterator[MediaSource]:
    """Read parts as belonging to ``file``: its folder is where their paths start and end.

    Paths may not leave the file's folder unless ``root`` (or ``RUBRICJUDGE_MEDIA_ROOT``)
    names a folder that holds them; URLs are fetched only with ``allow_urls`` (or
    ``RUBRICJUDGE_ALLOW_URLS=1``). ``allow_paths=False`` refuses paths altogether.
    """
    base = Path(file).resolve().parent if file is not None else None
    where = root if root is not None else os.environ.get(MEDIA_ROOT_ENV) or None
    confine = Path(where).resolve() if where is not None else base
    if allow_urls is None:
        allow_urls = os.environ.get(ALLOW_URLS_ENV, "") in ("1", "true", "yes")
    source = MediaSource(
        base=base,
        root=confine,
        allow_urls=allow_urls,
        max_part_bytes=MAX_PART_BYTES,
        max_parts=MAX_PARTS,
        allow_paths=allow_paths,
    )
    token = _SOURCE.set(source)
    try:
        yield source
    finally:
        _SOURCE.reset(token)


# -- reading one part ------------------------------------------------------------------------
def is_media_part(part: Any) -> bool:
    """True for a content part that holds an image or a document (any of the read shapes)."""
    return isinstance(part, Mapping) and part.get("type") in (
        "image",
        "document",
        "image_url",
        "file",
        "input_image",
        "input_file",
    )


def _decode(text: Any, limit: int, what: str) -> bytes:
    if not isinstance(text, str):
        raise MediaProblem(f"{what} must be base64 text, got {type(text).__name__}")
    if len(text) * 3 // 4 > limit + 3:
        raise MediaProblem(f"{what} is over the limit of {limit:,} bytes")
    try:
        return binascii.a2b_base64("".join(text.split()), strict_mode=True)
    except (binascii.Error, ValueError):
        raise MediaProblem(f"{what} is not valid base64") from None


def _data_url(url: str, limit: int) -> bytes:
    head, sep, body = url.partition(",")
    if not sep or not head.endswith(";base64"):
        raise MediaProblem("a data: URL must be base64 (data:<type>;base64,<data>)")
    return _decode(body, limit, "the data: URL")


def _fetch(url: str, source: MediaSource) -> bytes:
    if not source.allow_urls:
        raise MediaProblem(
            f"the URL {url!r} is not fetched: download it beside the dataset and give "
            "'path', or allow fetching with RUBRICJUDGE_ALLOW_URLS=1"
        )
    if not url.startswith(("http://", "https://")):
        raise MediaProblem(f"{url!r} is not an http(s) or data: URL")
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=30) as reply:  # noqa: S310 - http(s) checked
            data: bytes = reply.read(source.max_part_bytes + 1)
    except OSError as e:
        raise MediaProblem(f"cannot fetch {url!r}: {e}") from None
    if len(data) > source.max_part_bytes:
        raise MediaProblem(f"{url!r} is over the limit of {source.max_part_bytes:,} bytes")
    return data


def _read_path(value: Any, source: MediaSource) -> tuple[bytes, str]:
    if not source.allow_paths:
        raise MediaProblem(
            "files are not read here: send the bytes as 'data' (base64) or a data: URL"
        )
    if not isinstance(value, str) or not value.strip():
        raise MediaProblem("'path' must be a file's path (text)")
    base = source.base or Path.cwd()
    full = (base / value).resolve()
    if source.root is not None and not full.is_relative_to(source.root):
        raise MediaProblem(
            f"the path {value!r} leads outside {str(source.root)!r}; keep images beside the "
            "dataset, or allow a wider folder with RUBRICJUDGE_MEDIA_ROOT=<folder>"
        )
    try:
        size = full.stat().st_size
        if size > source.max_part_bytes:
            raise MediaProblem(
                f"{value!r} is {size:,} bytes, over the limit of {source.max_part_bytes:,}"
            )
        with full.open("rb") as f:
            return f.read(source.max_part_bytes + 1), value
    except FileNotFoundError:
        raise MediaProblem(f"the file {value!r} was not found (looked at {str(full)!r})") from None
    except IsADirectoryError:
        raise MediaProblem(f"{value!r} is a folder, not a file") from None
    except OSError as e:
        raise MediaProblem(f"cannot read {value!r}: {e.strerror}") from None


def _from_url(url: Any, source: MediaSource) -> tuple[bytes, str]:
    if not isinstance(url, str) or not url:
        raise MediaProblem("'url' must be text")
    if url.startswith("data:"):
        return _data_url(url, source.max_part_bytes), ""
    return _fetch(url, source), url


def _raw_bytes(part: Mapping[str, Any], source: MediaSource) -> tuple[bytes, str, str | None]:
    """(bytes, name, the kind the shape says) of a part in any of the read shapes."""
    kind = part.get("type")
    limit = source.max_part_bytes
    if kind in ("image", "document") and isinstance(part.get("source"), Mapping):
        src = part["source"]  # Anthropic's block
        stype = src.get("type")
        if stype == "base64":
            return _decode(src.get("data"), limit, "source.data"), "", str(kind)
        if stype == "url":
            data, name = _from_url(src.get("url"), source)
            return data, name, str(kind)
        raise MediaProblem(
            f"a {kind} block's source of type {stype!r} cannot be read; give base64 data or a URL"
        )
    if kind in ("image", "document"):  # our own form
        given = [k for k in ("path", "url", "data") if part.get(k) is not None]
        if len(given) != 1:
            raise MediaProblem(
                f"an {kind} part needs exactly one of 'path', 'url' or 'data'"
                + (f" (it has {', '.join(given)})" if given else "")
            )
        given_name = part.get("name")
        name = given_name if isinstance(given_name, str) else ""
        if given[0] == "path":
            data, where = _read_path(part["path"], source)
            return data, where, str(kind)
        if given[0] == "url":
            data, where = _from_url(part["url"], source)
            return data, where or name, str(kind)
        value = part["data"]
        if isinstance(value, str) and value.startswith("data:"):
            return _data_url(value, limit), name, str(kind)
        return _decode(value, limit, "'data'"), name, str(kind)
    if kind in ("image_url", "input_image"):  # OpenAI's chat and Responses forms
        inner = part.get("image_url")
        url = inner.get("url") if isinstance(inner, Mapping) else inner
        data, name = _from_url(url, source)
        return data, name, "image"
    if kind in ("file", "input_file"):
        inner = part.get("file") if kind == "file" else part
        if not isinstance(inner, Mapping) or not isinstance(inner.get("file_data"), str):
            raise MediaProblem(
                "a file part needs 'file_data' (base64 or a data: URL); uploaded file ids "
                "cannot be read"
            )
        raw = inner["file_data"]
        filename = inner.get("filename")
        name = filename if isinstance(filename, str) else ""
        data = (
            _data_url(raw, limit) if raw.startswith("data:") else _decode(raw, limit, "file_data")
        )
        return data, name, "document"
    raise MediaProblem(f"{kind!r} is not an image or document part")


def read_part(
    part: Mapping[str, Any], number: int, source: MediaSource | None = None, owner: str = ""
) -> MediaPart:
    """Read one image or document part (any shape :func:`is_media_part` accepts).

    Raises:
        MediaProblem: the part cannot be read, is too large or is no known type.
    """
    source = source or current_source()
    data, name, kind = _raw_bytes(part, source)
    if len(data) > source.max_part_bytes:
        raise MediaProblem(
            f"it is {len(data):,} bytes, over the limit of {source.max_part_bytes:,}"
        )
    media_type = sniff(data)
    if media_type is None:
        raise MediaProblem(
            "its bytes are not a PNG, JPEG, GIF or WebP image nor a PDF document"
            + (f" ({name!r})" if name else "")
        )
    actual: MediaKind = "document" if media_type in DOCUMENT_TYPES else "image"
    if kind == "image" and actual != "image":
        raise MediaProblem(
            f"it is marked as an image but its bytes are a {FORMAT_NAMES[media_type]}"
        )
    size = image_size(data, media_type) if actual == "image" else None
    return MediaPart(
        kind=actual,
        media_type=media_type,
        data=data,
        name=name,
        number=number,
        width=size[0] if size else None,
        height=size[1] if size else None,
        owner=owner,
    )


class MediaCollector:
    """Reads the parts of one submission in order, numbering them, within the count limit."""

    def __init__(self, source: MediaSource | None = None, owner: str = "") -> None:
        self.source = source or current_source()
        self.owner = owner
        self.parts: list[MediaPart] = []

    def add(self, part: Mapping[str, Any]) -> MediaPart:
        """Read ``part`` as the next one; its placeholder goes where it stood.

        Raises:
            MediaProblem: as :func:`read_part`, or past the most parts a submission may hold.
        """
        if len(self.parts) >= self.source.max_parts:
            raise MediaProblem(
                f"a submission may hold at most {self.source.max_parts} images and documents"
            )
        got = read_part(part, len(self.parts) + 1, self.source, self.owner)
        self.parts.append(got)
        return got
