"""What the pairwise, group and repeat tests share: reading our prompts as a server sees them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from rubricjudge._cli.main import main

RUBRIC_YAML = """\
format: rubricjudge/1
name: capital
criteria:
- name: names_paris
  requirement: Names Paris as the capital of France.
  weight: 4
- name: explains
  requirement: Says why Paris is the capital.
  weight: 2
- name: error
  requirement: Contains a factual error.
  weight: -3
"""

_BLOCK = re.compile(r"<(answer-\d+)-([0-9a-f]{8})>\n(.*?)\n</\1-\2>", re.DOTALL)


def user_text(body: Any) -> str:
    """The user message of a chat request."""
    return str(next(m["content"] for m in body["messages"] if m["role"] == "user"))


def shown_answers(body: Any) -> list[str]:
    """The answers of a comparison or a listwise prompt, in the order shown."""
    return [m.group(3) for m in _BLOCK.finditer(user_text(body))]


def is_pairwise(body: Any) -> bool:
    """Whether a chat request asks to compare two answers."""
    return "Answer 1:" in user_text(body) and "Answer 2:" in user_text(body)


def statement(body: Any) -> str:
    """The criterion a request asks about (the line after the answers)."""
    text = user_text(body)
    for marker in ("Statement about the answers: ", "Statement about the submission: "):
        if marker in text:
            return text.split(marker, 1)[1].split("\n", 1)[0]
    return "holistic" if "Rubric (out of 100 points)" in text else ""


def write_pairs(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Write ``rows`` as JSON lines."""
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def read_lines(path: Path) -> list[dict[str, Any]]:
    """The JSON lines of ``path``."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def grade(tmp_path: Path, server: Any, *args: str, rubric: str = RUBRIC_YAML) -> int:
    """Run ``rubricjudge grade`` with the openai judge aimed at ``server``."""
    r = tmp_path / "rubric.yaml"
    r.write_text(rubric, encoding="utf-8")
    return main(["grade", str(r), *args, "--judge", "openai/test", "--base-url", server.base_url])
