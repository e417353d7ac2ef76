"""The labelling page: static HTML; everything about the items comes from the JSON API.

The page holds no item text: its script fetches items and draws every piece of
their text with ``textContent``, never as HTML. A Content-Security-Policy lets
only that one script (by its hash) and that one stylesheet run, lets it talk to
this server only, and keeps the page out of frames.
"""

from __future__ import annotations

import base64
import hashlib

from ._assets import CSS, JS

__all__ = ["page_headers", "render_page"]


def _hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


def csp() -> str:
    """The page's Content-Security-Policy."""
    return (
        f"default-src 'none'; script-src '{_hash(JS)}'; style-src '{_hash(CSS)}'; "
        "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    )


def page_headers() -> dict[str, str]:
    """Headers the page is served with."""
    return {
        "Content-Security-Policy": csp(),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
        "X-Frame-Options": "DENY",
    }


_HELP = (
    "<kbd>y</kbd> met · <kbd>n</kbd> unmet · <kbd>s</kbd> cannot assess · "
    "<kbd>1</kbd>–<kbd>9</kbd>, <kbd>0</kbd> an option · <kbd>↑</kbd> <kbd>↓</kbd> criterion · "
    "<kbd>→</kbd> or <kbd>Enter</kbd> next item (skips an unfinished one) · <kbd>←</kbd> back · "
    "<kbd>u</kbd> undo · <kbd>?</kbd> hide this"
)


def render_page() -> str:
    """The page's HTML."""
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width,initial-scale=1'>"
        "<link rel='icon' href='data:,'><title>rubricjudge label</title>"
        f"<style>{CSS}</style></head><body>"
        "<header><h1>rubricjudge label</h1><span id='progress' aria-live='polite'></span>"
        "<span id='calib'></span></header>"
        "<form id='token-form' hidden><label>This page needs the server's token: "
        "<input id='token' type='password' autocomplete='off'></label> "
        "<button type='submit'>Use it</button></form>"
        "<div id='done' hidden>Every item is labelled. Thank you.</div>"
        "<main id='item' hidden><section><h2>Question</h2><p id='query'></p>"
        "<h2>Answer <span id='item-id'></span></h2><div id='submission'></div></section>"
        "<section><h2>Criteria</h2><ol id='criteria'></ol>"
        "<p id='status' role='status' aria-live='polite'></p>"
        f"<p id='help'>{_HELP}</p></section></main>"
        f"<script>{JS}</script></body></html>"
    )
