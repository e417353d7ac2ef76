"""What the reward tests share: a fruit rubric, and judges that check the submission for fruit.

``fruit_reply`` answers an OpenAI chat request the way a careful judge would for
the fruit rubric: "yes" when the submission names the statement's fruit, "no"
otherwise, and a 500 when the submission says FAIL (a judge outage for that
rollout). ``keyword_judge`` does the same for a :class:`FakeJudge`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rubricjudge import JudgeError
from rubricjudge._judges._base import JudgeRequest
from rubricjudge._judges._fake import fake_reply_for_schema
from tests.support.chat_server import Reply, schema_of

FRUIT_RUBRIC = """\
format: rubricjudge/1
name: fruit
version: 1.0.0
criteria:
- name: apples
  requirement: Mentions apples
  weight: 1.0
- name: bananas
  requirement: Mentions bananas
  weight: 1.0
"""

_SUBMISSION = re.compile(r"<submission-[0-9a-f]+>\n(.*?)\n</submission-[0-9a-f]+>", re.S)
_STATEMENT = re.compile(r"Statement about the submission: Mentions (\w+)")


def write_rubric(directory: Path, name: str = "fruit") -> Path:
    """Write the fruit rubric as ``<name>.yaml`` in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.yaml"
    path.write_text(FRUIT_RUBRIC)
    return path


def _decide(user: str) -> bool | None:
    """True/False: the submission names the fruit or not; None: it asks for a failure."""
    found = _SUBMISSION.search(user)
    statement = _STATEMENT.search(user)
    assert found and statement, user
    submission = found.group(1)
    if "FAIL" in submission:
        return None
    return statement.group(1).rstrip("s") in submission


def fruit_reply(body: Any) -> Reply:
    """The chat server's answer for the fruit rubric."""
    decided = _decide(body["messages"][-1]["content"])
    if decided is None:
        return Reply.server_error(500)
    return Reply.json(_answer(schema_of(body) or {}, decided), usage=(40, 6))


def keyword_judge(request: JudgeRequest) -> dict[str, Any]:
    """A FakeJudge's answer for the fruit rubric (raises for FAIL)."""
    decided = _decide(request.user)
    if decided is None:
        raise JudgeError("scripted outage", category="server")
    return _answer(request.schema or {}, decided)


def _answer(schema: Any, yes: bool) -> dict[str, Any]:
    data = fake_reply_for_schema(schema)
    for key, prop in (schema.get("properties") or {}).items():
        enum = prop.get("enum") or []
        if "yes" in enum:
            data[key] = "yes" if yes else "no"
        elif "MET" in enum:
            data[key] = "MET" if yes else "UNMET"
    return data
