"""Hand-made agent trajectories for the tests, in OpenAI's and in Anthropic's form.

``OPENAI`` and ``ANTHROPIC`` (with ``ANTHROPIC_SYSTEM``) are one trajectory written
twice by hand, as each API would carry it: an airline agent looks a user up, finds a
reservation, books a flight after the user's yes, and answers. The fact
``SECRET_RESULT`` appears only in a tool result, ``SECRET_ARGUMENT`` only in a tool
call's arguments.
"""

from __future__ import annotations

import json
from typing import Any

SECRET_RESULT = "membership tier: platinum-7731"
SECRET_ARGUMENT = "HAT-4471"

SYSTEM = "You are an airline agent. Confirm before booking."

OPENAI: list[dict[str, Any]] = [
    {"role": "system", "content": SYSTEM},
    {"role": "user", "content": "Book me on the cheapest flight to Seattle. I am mia_li."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_a",
                "type": "function",
                "function": {"name": "get_user_details", "arguments": '{"user_id":"mia_li"}'},
            }
        ],
    },
    {
        "role": "tool",
        "tool_call_id": "call_a",
        "name": "get_user_details",
        "content": json.dumps({"name": "Mia Li", "note": SECRET_RESULT}),
    },
    {
        "role": "assistant",
        "content": "Let me find flights.",
        "tool_calls": [
            {
                "id": "call_b",
                "type": "function",
                "function": {
                    "name": "search_direct_flight",
                    "arguments": '{"origin": "JFK", "destination": "SEA", "date": "2024-05-20"}',
                },
            }
        ],
    },
    {
        "role": "tool",
        "tool_call_id": "call_b",
        "name": "search_direct_flight",
        "content": '[{"flight_number": "HAT-4471", "price": 120}]',
    },
    {"role": "assistant", "content": "The cheapest is $120. Shall I book it?"},
    {"role": "user", "content": "Yes."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_c",
                "type": "function",
                "function": {
                    "name": "book_reservation",
                    "arguments": json.dumps(
                        {
                            "user_id": "mia_li",
                            "flights": [{"flight_number": SECRET_ARGUMENT, "date": "2024-05-20"}],
                            "insurance": "no",
                            "amount": 120,
                        }
                    ),
                },
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_c", "content": '{"reservation_id": "ZX9"}'},
    {"role": "assistant", "content": "Booked: reservation ZX9."},
]

ANTHROPIC_SYSTEM = SYSTEM
ANTHROPIC: list[dict[str, Any]] = [
    {"role": "user", "content": "Book me on the cheapest flight to Seattle. I am mia_li."},
    {
        "role": "assistant",
        "content": [
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "get_user_details",
                "input": {"user_id": "mia_li"},
            }
        ],
    },
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_1",
                "content": [
                    {"type": "text", "text": json.dumps({"name": "Mia Li", "note": SECRET_RESULT})}
                ],
            }
        ],
    },
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me find flights."},
            {
                "type": "tool_use",
                "id": "toolu_2",
                "name": "search_direct_flight",
                "input": {"origin": "JFK", "destination": "SEA", "date": "2024-05-20"},
            },
        ],
    },
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_2",
                "content": '[{"flight_number": "HAT-4471", "price": 120}]',
            }
        ],
    },
    {"role": "assistant", "content": "The cheapest is $120. Shall I book it?"},
    {"role": "user", "content": [{"type": "text", "text": "Yes."}]},
    {
        "role": "assistant",
        "content": [
            {
                "type": "tool_use",
                "id": "toolu_3",
                "name": "book_reservation",
                "input": {
                    "user_id": "mia_li",
                    "flights": [{"flight_number": SECRET_ARGUMENT, "date": "2024-05-20"}],
                    "insurance": "no",
                    "amount": 120,
                },
            }
        ],
    },
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_3",
                "content": '{"reservation_id": "ZX9"}',
            }
        ],
    },
    {"role": "assistant", "content": [{"type": "text", "text": "Booked: reservation ZX9."}]},
]


def trajectory(*steps: tuple[str, Any]) -> list[dict[str, Any]]:
    """A small OpenAI trajectory from steps: ("user", text), ("assistant", text), ("call", name,
    args) as ("call", (name, args)), or ("result", text) answering the latest call."""
    out: list[dict[str, Any]] = []
    n = 0
    for kind, value in steps:
        if kind == "call":
            n += 1
            name, args = value
            call = {
                "id": f"c{n}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
            out.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "result":
            out.append({"role": "tool", "tool_call_id": f"c{n}", "content": value})
        else:
            out.append({"role": kind, "content": value})
    return out
