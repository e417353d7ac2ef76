"""promptfoo (issue 36): the Python assertion in a real ``promptfoo eval`` (npm).

promptfoo is found at ``$RUBRICJUDGE_PROMPTFOO`` or ``.ci/promptfoo/node_modules/.bin``
(where .ci/run installs it). The model is promptfoo's ``echo`` provider (the prompt
is the output); the judge is ``openai/m`` against the scripted chat server in this
process: the fruit rubric, and a 500 for an output saying FAIL.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.chat_server import ChatServer
from tests.support.reward_helpers import fruit_reply, write_rubric

ROOT = Path(__file__).resolve().parents[2]
PROMPTFOO = Path(
    os.environ.get("RUBRICJUDGE_PROMPTFOO")
    or ROOT / ".ci" / "promptfoo" / "node_modules" / ".bin" / "promptfoo"
)

if not PROMPTFOO.is_file() or shutil.which("node") is None:
    if os.environ.get("RUBRICJUDGE_REQUIRE_INTEGRATIONS"):
        raise RuntimeError(f"promptfoo is not at {PROMPTFOO} (.ci/run installs it there)")
    pytest.skip(
        f"needs promptfoo from npm at {PROMPTFOO} (npm install --prefix .ci/promptfoo)",
        allow_module_level=True,
    )

CONFIG = """
prompts: ["{{{{answer}}}}"]
providers: ["echo"]
defaultTest:
  assert:
    - type: python
      value: file://rubric_assert.py
      config:
        rubric: fruit.yaml
        judge: openai/m
        judge_options: {{base_url: "{url}", api_key: k, max_retries: 0}}
        threshold: 0.75
tests:
  - description: both fruits
    vars: {{answer: apples and bananas}}
  - description: one fruit
    vars: {{answer: only apples}}
  - description: judge outage
    vars: {{answer: FAIL}}
"""


def test_promptfoo_eval_with_the_rubric_assertion(tmp_path: Path, chat_server: ChatServer) -> None:
    chat_server.handler = fruit_reply
    write_rubric(tmp_path)
    (tmp_path / "rubric_assert.py").write_text(
        "from rubricjudge.integrations.promptfoo import get_assert\n"
    )
    (tmp_path / "promptfooconfig.yaml").write_text(CONFIG.format(url=chat_server.base_url))
    env = dict(
        os.environ,
        PROMPTFOO_PYTHON=sys.executable,
        PROMPTFOO_DISABLE_TELEMETRY="1",
        PROMPTFOO_DISABLE_UPDATE="1",
        PROMPTFOO_CACHE_ENABLED="false",
        PROMPTFOO_CONFIG_DIR=str(tmp_path / "promptfoo-home"),
        HOME=str(tmp_path / "home"),
        RUBRICJUDGE_CACHE_DIR=str(tmp_path / "cache"),
    )
    proc = subprocess.run(
        [
            str(PROMPTFOO),
            "eval",
            "-c",
            "promptfooconfig.yaml",
            "-o",
            "results.json",
            "--no-cache",
            "--no-table",
            "--no-progress-bar",
            "-j",
            "1",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    said = proc.stdout[-4000:] + proc.stderr[-4000:]
    assert (tmp_path / "results.json").is_file(), said
    data: dict[str, Any] = json.loads((tmp_path / "results.json").read_text())
    rows = {r["testCase"]["description"]: r for r in data["results"]["results"]}
    both = rows["both fruits"]["gradingResult"]
    assert both["pass"] is True and both["score"] == 1.0, both
    inner = _ours(both)
    assert [c["reason"].split(":")[0] for c in inner["componentResults"]] == ["apples", "bananas"]
    assert all(c["pass"] for c in inner["componentResults"])
    one = rows["one fruit"]["gradingResult"]
    assert one["pass"] is False and one["score"] == 0.5  # below the 0.75 threshold
    assert "bananas: UNMET" in one["reason"]
    # the judge's outage: a failed assertion with the error as its reason, not our score
    outage = rows["judge outage"]["gradingResult"]
    assert outage["pass"] is False, outage
    first = outage["reason"].splitlines()[0]
    assert "the rubric could not be graded" in first and "HTTP 500" in first, first
    assert proc.returncode != 0, said  # promptfoo exits non-zero when a test fails


def _ours(result: dict[str, Any]) -> dict[str, Any]:
    """Our GradingResult: the assertion's own, under promptfoo's per-test aggregate."""
    for c in result.get("componentResults") or []:
        if c.get("componentResults"):
            return c
    return result
