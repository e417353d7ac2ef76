"""DeepEval (issue 36): RubricMetric through DeepEval's own runner, offline.

``deepeval.evaluate`` and ``deepeval test run`` (with ``assert_test``) run in a
child process in a scratch directory (DeepEval writes its ``.deepeval`` folder
there), telemetry off. The judge is ``openai/m`` against the scripted chat server
in this process: the fruit rubric, and a 500 for a submission saying FAIL.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.chat_server import ChatServer
from tests.support.reward_helpers import fruit_reply, write_rubric

if not os.environ.get("RUBRICJUDGE_REQUIRE_INTEGRATIONS"):
    pytest.importorskip("deepeval", reason="needs rubricjudge[deepeval]")

EVALUATE = """
import json, sys
from deepeval import evaluate
from deepeval.evaluate.configs import CacheConfig, DisplayConfig, ErrorConfig
from deepeval.test_case import LLMTestCase
from rubricjudge.integrations.deepeval import RubricMetric

rubric, base_url = sys.argv[1], sys.argv[2]
options = {"base_url": base_url, "api_key": "k", "max_retries": 0}
metric = RubricMetric(rubric, judge="openai/m", judge_options=options, threshold=0.75)
cases = [
    LLMTestCase(input="Name fruit.", actual_output=text, name=name)
    for name, text in [("good", "apples and bananas"), ("half", "only apples"), ("outage", "FAIL")]
]
result = evaluate(
    cases,
    [metric],
    error_config=ErrorConfig(ignore_errors=True),
    display_config=DisplayConfig(show_indicator=False, print_results=False),
    cache_config=CacheConfig(write_cache=False, use_cache=False),
)
out = {
    r.name: {
        "success": r.success,
        "metrics": [
            {"name": m.name, "score": m.score, "success": m.success, "reason": m.reason,
             "error": m.error, "model": m.evaluation_model}
            for m in r.metrics_data
        ],
    }
    for r in result.test_results
}
print("RESULT " + json.dumps(out))
"""

TESTS = """
import os
from deepeval import assert_test
from deepeval.test_case import LLMTestCase
from rubricjudge.integrations.deepeval import RubricMetric

options = {"base_url": os.environ["JUDGE_URL"], "api_key": "k", "max_retries": 0}
metric = RubricMetric(os.environ["RUBRIC"], judge="openai/m", judge_options=options)


def test_names_both_fruits():
    assert_test(LLMTestCase(input="Name fruit.", actual_output="apples and bananas"), [metric])


def test_names_no_fruit():
    assert_test(LLMTestCase(input="Name fruit.", actual_output="pears"), [metric])


def test_judge_outage():
    assert_test(LLMTestCase(input="Name fruit.", actual_output="FAIL"), [metric])
"""


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ, **extra)
    env.update(
        DEEPEVAL_TELEMETRY_OPT_OUT="YES",
        DEEPEVAL_UPDATE_WARNING_OPT_IN="NO",
        HOME=str(tmp_path / "home"),
        RUBRICJUDGE_CACHE_DIR=str(tmp_path / "cache"),
    )
    env.pop("OPENAI_API_KEY", None)  # DeepEval's own model is never asked
    return env


def test_evaluate_runs_the_metric_and_keeps_a_judge_failure_an_error(
    tmp_path: Path, chat_server: ChatServer
) -> None:
    chat_server.handler = fruit_reply
    rubric = write_rubric(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-c", EVALUATE, str(rubric), chat_server.base_url],
        cwd=tmp_path,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT "))
    out: dict[str, Any] = json.loads(line[len("RESULT ") :])
    (good,) = out["good"]["metrics"]
    assert good["name"] == "Rubric[fruit]" and good["model"] == "openai/m"
    assert good["score"] == 1.0 and good["success"] is True and out["good"]["success"] is True
    assert "- apples: MET" in good["reason"] and "- bananas: MET" in good["reason"]
    (half,) = out["half"]["metrics"]
    assert half["score"] == 0.5 and half["success"] is False  # below the 0.75 threshold
    # a judge outage is DeepEval's metric error: no score, not successful
    (outage,) = out["outage"]["metrics"]
    assert outage["error"] and "could not be graded" in outage["error"]
    assert outage["score"] is None and outage["success"] is False
    assert out["outage"]["success"] is False


def test_deepeval_test_run_with_assert_test(tmp_path: Path, chat_server: ChatServer) -> None:
    chat_server.handler = fruit_reply
    rubric = write_rubric(tmp_path)
    (tmp_path / "test_fruit.py").write_text(TESTS)
    deepeval = Path(sys.executable).with_name("deepeval")
    report = tmp_path / "junit.xml"
    env = _env(tmp_path, JUDGE_URL=chat_server.base_url, RUBRIC=str(rubric))
    proc = subprocess.run(
        [
            str(deepeval),
            "test",
            "run",
            "test_fruit.py",
            "--",
            f"--junitxml={report}",
            "-p",
            "no:cacheprovider",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    said = proc.stdout[-4000:] + proc.stderr[-4000:]
    assert proc.returncode != 0, said  # two of the three fail
    import xml.etree.ElementTree as ET

    cases = {c.get("name"): c for c in ET.parse(report).getroot().iter("testcase")}
    assert set(cases) == {"test_names_both_fruits", "test_names_no_fruit", "test_judge_outage"}
    failed = {
        n for n, c in cases.items() if c.find("failure") is not None or c.find("error") is not None
    }
    assert failed == {"test_names_no_fruit", "test_judge_outage"}, said
    outage = cases["test_judge_outage"]
    text = ET.tostring(outage, encoding="unicode")
    assert "could not be graded" in text
