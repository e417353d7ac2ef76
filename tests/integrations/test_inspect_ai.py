"""Inspect AI (issue 36): rubric_scorer in a real ``inspect eval``, graded by a model role.

A tiny task file is written and run with Inspect's own command line. The model under
evaluation and the ``grader`` role are Inspect's ``mockllm`` with scripted outputs:
the model echoes what it is asked to say; the grader answers the fruit rubric as a
careful judge would, and refuses (no JSON) for a submission saying FAIL. The test
reads the log Inspect wrote.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.reward_helpers import write_rubric

if not os.environ.get("RUBRICJUDGE_REQUIRE_INTEGRATIONS"):
    pytest.importorskip("inspect_ai", reason="needs rubricjudge[inspect]")

from inspect_ai.log import read_eval_log  # noqa: E402

TASK = """
import json, re
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.solver import generate
from rubricjudge.integrations.inspect import rubric_scorer

SUBMISSION = re.compile(r"<submission-[0-9a-f]+>\\n(.*?)\\n</submission-[0-9a-f]+>", re.S)
STATEMENT = re.compile(r"Statement about the submission: Mentions (\\w+)")


def out(model, text):
    # usage given, so mockllm does not count tokens with tiktoken (a download)
    output = ModelOutput.from_content(model, text)
    output.usage = ModelUsage(input_tokens=30, output_tokens=7, total_tokens=37)
    return output


def say(messages, tools, tool_choice, config):
    return out("mockllm/model", messages[-1].text.split(":", 1)[1].strip())


def grade(messages, tools, tool_choice, config):
    user = messages[-1].text
    submission = SUBMISSION.search(user).group(1)
    fruit = STATEMENT.search(user).group(1).rstrip("s")
    assert config.response_schema is not None  # the judge asks for our JSON schema
    if "FAIL" in submission:
        return out("mockllm/grader", "I would rather not say.")
    answer = "yes" if fruit in submission else "no"
    return out("mockllm/grader", json.dumps({{"answer": answer, "reason": "looked for " + fruit}}))


@task
def fruit():
    return Task(
        dataset=[
            Sample(input="Say: apples and bananas", id="good"),
            Sample(input="Say: only apples", id="half"),
            Sample(input="Say: FAIL", id="outage"),
        ],
        solver=generate(),
        scorer=rubric_scorer({rubric!r}, on_failure={on_failure!r}),
        model=get_model("mockllm/model", custom_outputs=say, memoize=False),
        model_roles={{"grader": get_model("mockllm/grader", custom_outputs=grade, memoize=False)}},
    )
"""


def _eval(tmp_path: Path, on_failure: str) -> object:
    rubric = write_rubric(tmp_path)
    task = tmp_path / "fruit_task.py"
    task.write_text(TASK.format(rubric=str(rubric), on_failure=on_failure))
    logs = tmp_path / "logs"
    env = dict(os.environ, INSPECT_DISPLAY="none", RUBRICJUDGE_CACHE_DIR=str(tmp_path / "c"))
    inspect = Path(sys.executable).with_name("inspect")
    proc = subprocess.run(
        [str(inspect), "eval", task.name, "--log-dir", str(logs), "--log-format", "json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (log_file,) = logs.glob("*.json")
    return read_eval_log(str(log_file))


def test_inspect_eval_scores_with_the_rubric_and_the_grader_role(tmp_path: Path) -> None:
    log = _eval(tmp_path, "unscored")
    assert log.status == "success"  # type: ignore[attr-defined]
    samples = {s.id: s for s in log.samples}  # type: ignore[attr-defined]
    good = samples["good"].scores["rubricjudge"]
    assert good.value == 1.0 and good.answer == "apples and bananas"
    assert "- apples: MET: looked for apple" in good.explanation
    report = good.metadata["rubricjudge"]
    assert report["score"] == 1.0 and len(report["report"]) == 2
    assert report["token_usage"]["prompt_tokens"] == 2 * 30  # the grader's, through Inspect
    assert samples["half"].scores["rubricjudge"].value == 0.5
    assert "- bananas: UNMET" in samples["half"].scores["rubricjudge"].explanation

    # the grader's failure is no number: unscored, and left out of Inspect's mean
    outage = samples["outage"].scores["rubricjudge"]
    assert isinstance(outage.value, float) and math.isnan(outage.value)
    assert outage.reason == "grader_failed" and "parse" in outage.explanation
    (scores,) = log.results.scores  # type: ignore[attr-defined]
    assert scores.metrics["mean"].value == pytest.approx(0.75)
    assert scores.scored_samples == 2 and scores.unscored_samples == 1
    # the grader role's model graded (Inspect counts its tokens beside the evaluated model's)
    assert samples["good"].model_usage["mockllm/grader"].input_tokens == 2 * 30


def test_on_failure_error_makes_it_a_sample_error(tmp_path: Path) -> None:
    log = _eval(tmp_path, "error")
    samples = {s.id: s for s in log.samples}  # type: ignore[attr-defined]
    assert samples["outage"].error is not None
    assert "could not be graded" in samples["outage"].error.message
    assert samples["good"].scores["rubricjudge"].value == 1.0
