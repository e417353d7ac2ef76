"""Reading OpenAI and Anthropic messages into one model, writing them back, and bad input."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from rubricjudge.conversations import (
    Conversation,
    Message,
    read_messages,
    render_for_prompt,
    to_submission,
)
from rubricjudge.errors import ConversationError
from tests.support.media_helpers import png
from tests.support.trajectories import ANTHROPIC, ANTHROPIC_SYSTEM, OPENAI, SECRET_ARGUMENT

EXAMPLE = Path(__file__).parents[2] / "examples" / "tau_bench" / "trajectories.jsonl"


def test_the_two_forms_of_one_trajectory_read_into_the_same_conversation() -> None:
    openai = read_messages(OPENAI)
    anthropic = read_messages(ANTHROPIC, system=ANTHROPIC_SYSTEM)
    # ids differ between the APIs; everything a judge or a check reads is the same
    strip = [m.model_copy(update={"tool_call_id": None}) for m in openai.messages]
    strip_a = [m.model_copy(update={"tool_call_id": None}) for m in anthropic.messages]
    for a, b in zip(strip, strip_a, strict=True):
        assert a.role == b.role and a.content == b.content and a.name == b.name
        assert [(c.name, c.arguments) for c in a.tool_calls] == [
            (c.name, c.arguments) for c in b.tool_calls
        ]
    assert render_for_prompt(openai).text == render_for_prompt(anthropic).text
    uses = openai.tool_uses()
    assert [(u.number, u.call.name, u.result) for u in uses] == [
        (1, "get_user_details", 3),
        (2, "search_direct_flight", 5),
        (3, "book_reservation", 9),
    ]
    assert uses[2].call.arguments["flights"][0]["flight_number"] == SECRET_ARGUMENT
    # the tool result without a name takes its call's
    assert openai.messages[9].name == "book_reservation"
    assert [(t.first, t.last) for t in openai.assistant_turns()] == [(2, 6), (8, 10)]
    assert openai.ends_with_assistant and openai.final_text == "Booked: reservation ZX9."


def test_real_trajectories_round_trip_through_both_forms() -> None:
    for line in EXAMPLE.read_text(encoding="utf-8").splitlines():
        conv = read_messages(json.loads(line)["messages"])
        assert read_messages(conv.to_openai()) == conv
        a = conv.to_anthropic()
        back = read_messages(a["messages"], system=a.get("system"))
        assert back == conv


TINY_PNG = "data:image/png;base64," + base64.b64encode(png(1, 1)).decode()


def test_parts_reasoning_placeholders_and_legacy_calls() -> None:
    conv = read_messages(
        [
            {"role": "developer", "content": [{"type": "text", "text": "Be brief."}]},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is this?"},
                    {"type": "image_url", "image_url": {"url": TINY_PNG}},
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "It looks like a cat."},
                    {"type": "text", "text": "Let me check."},
                ],
            },
            {
                "role": "assistant",
                "content": None,
                "function_call": {"name": "lookup", "arguments": "{oops"},
            },
            {"role": "function", "name": "lookup", "content": "a cat"},
            {"role": "assistant", "content": "A cat.", "reasoning_content": "sure"},
        ]
    )
    roles = [m.role for m in conv.messages]
    assert roles == ["system", "user", "assistant", "assistant", "tool", "assistant"]
    assert conv.messages[1].content == "What is this?\n[image 1]"  # the bytes: _media
    assert conv.messages[2].reasoning == "It looks like a cat."
    call = conv.messages[3].tool_calls[0]
    assert call.arguments is None and call.arguments_text == "{oops"  # kept as the model wrote it
    assert "(arguments are not valid JSON)" in render_for_prompt(conv).text
    assert conv.messages[4].name == "lookup" and conv.messages[5].reasoning == "sure"
    # written back, the legacy call gets an id (call_1); the judge reads the same
    again = read_messages(conv.to_openai())
    assert again.messages[3].tool_calls[0].id == "call_1"
    assert render_for_prompt(again).text == render_for_prompt(conv).text


@pytest.mark.parametrize(
    ("messages", "where"),
    [
        ([], "messages: no messages"),
        ("hello", "messages: expected a list of messages, got str"),
        ([{"role": "robot", "content": "x"}], "messages[0].role: 'robot' is not a role"),
        (
            [
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": 5}}],
                }
            ],
            "messages[0].tool_calls[0].function.arguments: expected JSON text or an object",
        ),
        (
            [{"role": "assistant", "tool_calls": [{"id": "c", "function": {"arguments": "{}"}}]}],
            "messages[0].tool_calls[0].function.name: a tool call needs the tool's name",
        ),
        (
            [{"role": "tool", "tool_call_id": "nope", "content": "x"}],
            "messages[0].tool_call_id: 'nope' answers no tool call before it",
        ),
        (
            [
                {
                    "role": "user",
                    "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}],
                }
            ],
            "messages[0].content[0].type: 'tool_use' is not a content part a user message",
        ),
        (
            [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x"}]}],
            "messages[0].content[0].tool_use_id: 'x' answers no tool call before it",
        ),
        ([{"role": "user", "tool_calls": []}], "messages[0].tool_calls: only an assistant"),
    ],
)
def test_bad_messages_name_the_path(messages: object, where: str) -> None:
    with pytest.raises(ConversationError) as e:
        read_messages(messages)
    assert str(e.value).startswith(where)


def test_submissions_accept_conversations_in_every_shape() -> None:
    conv = read_messages(OPENAI)
    for given in (OPENAI, {"messages": OPENAI}, conv, to_submission(conv)):
        sub = to_submission(given)
        assert sub.conversation == conv and sub.output == "Booked: reservation ZX9."
    anthropic = to_submission({"messages": ANTHROPIC, "system": ANTHROPIC_SYSTEM})
    assert anthropic.conversation is not None and len(anthropic.conversation) == len(conv)
    with pytest.raises(Exception, match="unknown key 'tools'"):
        to_submission({"messages": OPENAI, "tools": []})
    assert to_submission("plain").conversation is None
    one = Conversation(messages=(Message(role="user", content="hi"),))
    assert not one.ends_with_assistant and one.assistant_turns() == []
