"""Draw the images and the PDF of the multimodal example, byte for byte the same each time.

Run ``python3 examples/multimodal/draw.py`` to write them beside this script (or
``python3 draw.py OUT_DIR`` elsewhere). Plain Python only: PNGs are written row by
row and compressed with zlib, the PDF object by object.

The task the submissions answer is "Draw three red apples on a white background":

* ``three_red_apples.png``: what was asked;
* ``two_red_apples.png``: one apple short;
* ``three_green_apples.png``: the wrong colour;
* ``report.pdf``: a two-page note about the drawings (for the document checks).
"""

from __future__ import annotations

import struct
import sys
import zlib
from pathlib import Path

WIDTH, HEIGHT = 240, 120
WHITE = (255, 255, 255)
RED = (200, 30, 30)
GREEN = (60, 170, 60)
BROWN = (110, 70, 30)


def png(width: int, height: int, pixels: list[list[tuple[int, int, int]]]) -> bytes:
    """An 8-bit RGB PNG of ``pixels`` (rows of (r, g, b))."""
    raw = bytearray()
    for row in pixels:
        raw.append(0)  # no filter
        for r, g, b in row:
            raw += bytes((r, g, b))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(bytes(raw), 9))
        + chunk(b"IEND", b"")
    )


def apples(count: int, colour: tuple[int, int, int]) -> bytes:
    """``count`` round apples with a stem each, evenly spaced on white."""
    pixels = [[WHITE] * WIDTH for _ in range(HEIGHT)]
    radius = 28
    for k in range(count):
        cx, cy = (k + 1) * WIDTH // (count + 1), HEIGHT // 2 + 8
        for y in range(cy - radius, cy + radius + 1):
            for x in range(cx - radius, cx + radius + 1):
                if (x - cx) ** 2 + (y - cy) ** 2 <= radius**2:
                    pixels[y][x] = colour
        for y in range(cy - radius - 12, cy - radius + 2):  # the stem
            for x in range(cx - 2, cx + 3):
                pixels[y][x] = BROWN
    return png(WIDTH, HEIGHT, pixels)


def pdf(pages: list[str]) -> bytes:
    """A PDF of one line of Helvetica text per page."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(len(pages)))
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    font = 3 + 2 * len(pages)
    for i, text in enumerate(pages):
        stream = f"BT /F1 18 Tf 40 700 Td ({text}) Tj ET".encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


FILES = {
    "three_red_apples.png": lambda: apples(3, RED),
    "two_red_apples.png": lambda: apples(2, RED),
    "three_green_apples.png": lambda: apples(3, GREEN),
    "report.pdf": lambda: pdf(["Summary: three apples were drawn", "Colours: red and green"]),
}


def main(out: Path) -> None:
    """Write every file of the example into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    for name, make in FILES.items():
        (out / name).write_bytes(make())


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent)
