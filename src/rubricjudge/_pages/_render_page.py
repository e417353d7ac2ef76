"""A submission as a page shows it: text, or a conversation as turns with tool calls folded.

:func:`page_view` gives plain JSON-ready data (what the HTML report's script draws
with ``textContent``); :func:`render_for_page` gives an HTML fragment for pages
rendered on the server, every piece of text escaped, styled by :data:`PAGE_CSS`.
Both number messages and tool calls as judge prompts do (``#3``, ``tool 1``), so a
verdict's reason that names them can be found on the page.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from .._conversations._submission import Submission, to_submission

__all__ = ["PAGE_CSS", "page_view", "render_for_page"]


def page_view(submission: Any) -> dict[str, Any]:
    """Plain data of a submission for a page.

    Text: ``{"kind": "text", "text": ..., "thinking": ...}``. A conversation:
    ``{"kind": "conversation", "messages": [...]}``, each message with ``n`` (from
    1), ``role``, ``text``, and where they apply ``reasoning``, ``turn`` (the
    assistant turn it belongs to), ``calls`` (``[{"n", "name", "arguments"}]``) and,
    on a tool result, ``result_of`` (the call's number), ``tool`` and ``error``.
    """
    sub = submission if isinstance(submission, Submission) else to_submission(submission)
    conv = sub.conversation
    if conv is None:
        out: dict[str, Any] = {"kind": "text", "text": sub.output}
        if sub.thinking:
            out["thinking"] = sub.thinking
        return out
    uses = conv.tool_uses()
    by_message: dict[int, list[Any]] = {}
    for u in uses:
        by_message.setdefault(u.message, []).append(u)
    result_of = {u.result: u.number for u in uses if u.result is not None}
    turn_of = {i: t.number for t in conv.assistant_turns() for i in range(t.first, t.last + 1)}
    messages = []
    for i, m in enumerate(conv.messages):
        rec: dict[str, Any] = {"n": i + 1, "role": m.role, "text": m.content}
        if m.reasoning:
            rec["reasoning"] = m.reasoning
        if i in turn_of:
            rec["turn"] = turn_of[i]
        if i in by_message:
            rec["calls"] = [
                {"n": u.number, "name": u.call.name, "arguments": u.call.arguments_json}
                for u in by_message[i]
            ]
        if m.role == "tool":
            rec["tool"] = m.name
            if i in result_of:
                rec["result_of"] = result_of[i]
            if m.is_error:
                rec["error"] = True
        messages.append(rec)
    return {"kind": "conversation", "messages": messages}


PAGE_CSS = """
.rj-conversation{list-style:none;margin:0;padding:0}
.rj-msg{border-left:3px solid #cdd3df;margin:6px 0;padding:2px 10px}
.rj-msg.rj-user{border-color:#4a78c2}.rj-msg.rj-assistant{border-color:#1e7b34}
.rj-msg.rj-system{border-color:#888;color:#444}.rj-msg.rj-tool{border-color:#b07d12}
.rj-role{font-weight:600;font-size:12px;color:#555}
.rj-text{white-space:pre-wrap;word-break:break-word;margin:2px 0}
.rj-call summary,.rj-result summary{cursor:pointer;font-family:monospace;font-size:12px}
.rj-call pre,.rj-result pre{white-space:pre-wrap;word-break:break-word;background:#f5f6f8;
padding:6px;margin:2px 0;max-height:300px;overflow:auto}
.rj-notes{font-size:12px;margin:2px 0 6px}.rj-notes li{display:inline;margin-right:10px}
"""
"""The style of :func:`render_for_page`'s fragment (class names start with ``rj-``)."""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _notes(notes: Sequence[str]) -> str:
    if not notes:
        return ""
    return "<ul class='rj-notes'>" + "".join(f"<li>{_e(n)}</li>" for n in notes) + "</ul>"


def _message_html(rec: Mapping[str, Any], notes: Sequence[str]) -> str:
    role = rec["role"]
    label = f"#{rec['n']} {role}"
    if role == "tool":
        tool = f" {rec['tool']}" if rec.get("tool") else ""
        of = f" of call {rec['result_of']}" if "result_of" in rec else ""
        err = " (error)" if rec.get("error") else ""
        summary = f"{label}: result{of}{tool}{err}"
        body = f"<details class='rj-result'><summary>{_e(summary)}</summary>"
        body += f"<pre>{_e(rec['text'])}</pre></details>{_notes(notes)}"
        return f"<li class='rj-msg rj-tool' data-n='{rec['n']}'>{body}</li>"
    parts = [f"<div class='rj-role'>{_e(label)}</div>"]
    if rec.get("reasoning"):
        parts.append(
            "<details class='rj-result'><summary>reasoning</summary>"
            f"<pre>{_e(rec['reasoning'])}</pre></details>"
        )
    if rec["text"] or not rec.get("calls"):
        parts.append(f"<div class='rj-text'>{_e(rec['text'])}</div>")
    for call in rec.get("calls", []):
        summary = f"calls tool {call['n']}: {call['name']}"
        parts.append(
            f"<details class='rj-call'><summary>{_e(summary)}</summary>"
            f"<pre>{_e(call['arguments'])}</pre></details>"
        )
    parts.append(_notes(notes))
    return f"<li class='rj-msg rj-{_e(role)}' data-n='{rec['n']}'>{''.join(parts)}</li>"


def render_for_page(
    submission: Any, *, turn_notes: Mapping[int, Sequence[str]] | None = None
) -> str:
    """An HTML fragment showing a submission: text in a ``<pre>``, or a conversation.

    A conversation is an ``<ol class="rj-conversation">`` of messages; tool calls
    and tool results are folded in ``<details>``. ``turn_notes`` maps an assistant
    turn's number to lines shown after its last message (per-turn verdicts). Every
    piece of text is escaped; style it with :data:`PAGE_CSS`.
    """
    view = page_view(submission)
    if view["kind"] == "text":
        thinking = view.get("thinking")
        head = (
            f"<details class='rj-result'><summary>reasoning</summary><pre>{_e(thinking)}</pre>"
            "</details>"
            if thinking
            else ""
        )
        return (
            f"<div class='rj-submission'>{head}<pre class='rj-text'>{_e(view['text'])}</pre></div>"
        )
    notes = dict(turn_notes or {})
    last_of: dict[int, int] = {}
    for rec in view["messages"]:
        if "turn" in rec:
            last_of[rec["turn"]] = rec["n"]
    items = []
    for rec in view["messages"]:
        turn = rec.get("turn")
        shown = notes.get(turn, ()) if turn is not None and last_of[turn] == rec["n"] else ()
        items.append(_message_html(rec, list(shown)))
    return f"<ol class='rj-conversation'>{''.join(items)}</ol>"
