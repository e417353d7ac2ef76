"""MLflow (issue 36): the GenAI scorer in ``mlflow.genai.evaluate`` and ``evaluate --mlflow``.

Both run in child processes in a scratch directory, against a SQLite tracking store
(``sqlite:///.../mlflow.db``; MLflow's file store is in maintenance mode), and read
back through ``MlflowClient``. The judge is ``openai/m`` against the scripted chat
server in this process: the fruit rubric, and a 500 for a submission saying FAIL.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.chat_server import ChatServer, Reply
from tests.support.reward_helpers import fruit_reply, write_rubric

if not os.environ.get("RUBRICJUDGE_REQUIRE_INTEGRATIONS"):
    pytest.importorskip("mlflow", reason="needs rubricjudge[mlflow]")
    pytest.importorskip("sqlalchemy", reason="needs rubricjudge[mlflow]")

SCORER = """
import json, math, sys
import mlflow
from rubricjudge.integrations.mlflow import rubric_scorer

rubric, base_url = sys.argv[1], sys.argv[2]
options = {"base_url": base_url, "api_key": "k", "max_retries": 0}
mlflow.set_experiment("scorer")
rows = [
    {"inputs": {"question": "Name fruit."}, "outputs": text}
    for text in ["apples and bananas", "only apples", "FAIL"]
]
result = mlflow.genai.evaluate(
    data=rows, scorers=[rubric_scorer(rubric, judge="openai/m", judge_options=options)]
)
df = result.result_df
def clean(v):
    return None if isinstance(v, float) and math.isnan(v) else v
cols = [c for c in df.columns if c.startswith("rubric")]
out = {
    "metrics": {k: float(v) for k, v in result.metrics.items()},
    "rows": [{c: clean(row[c]) for c in cols} for _, row in df.iterrows()],
}
print("RESULT " + json.dumps(out, default=str))
"""

READ = """
import json, sys
from mlflow.tracking import MlflowClient
client = MlflowClient()
exp = client.get_experiment_by_name(sys.argv[1])
(run,) = client.search_runs([exp.experiment_id])
arts = [a.path for a in client.list_artifacts(run.info.run_id)]
print("RESULT " + json.dumps({"params": run.data.params, "metrics": run.data.metrics,
                              "artifacts": arts, "id": run.info.run_id}))
"""


def _run(code: list[str], tmp_path: Path, exit_code: int = 0, **env_extra: str) -> dict[str, Any]:
    env = dict(os.environ, **env_extra)
    env.update(
        MLFLOW_TRACKING_URI=f"sqlite:///{tmp_path / 'mlflow.db'}",
        RUBRICJUDGE_CACHE_DIR=str(tmp_path / "cache"),
        HOME=str(tmp_path / "home"),
        OPENAI_API_KEY="k",
    )
    proc = subprocess.run(
        [sys.executable, *code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == exit_code, proc.stdout[-3000:] + proc.stderr[-3000:]
    lines = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")]
    return json.loads(lines[-1][len("RESULT ") :]) if lines else {"stderr": proc.stderr}


def test_the_scorer_in_mlflow_genai_evaluate(tmp_path: Path, chat_server: ChatServer) -> None:
    chat_server.handler = fruit_reply
    rubric = write_rubric(tmp_path)
    out = _run(["-c", SCORER, str(rubric), chat_server.base_url], tmp_path)
    by_output = {0: "good", 1: "half", 2: "outage"}
    rows = {by_output[i]: r for i, r in enumerate(out["rows"])}
    assert rows["good"]["rubric/value"] == 1.0 and rows["half"]["rubric/value"] == 0.5
    assert rows["good"]["rubric/apples/value"] == "MET"
    assert rows["half"]["rubric/bananas/value"] == "UNMET"
    assert rows["good"]["rubric/apples/rationale"]
    # the judge's outage: errors on the criteria and on the score, never a value
    assert rows["outage"]["rubric/value"] is None
    assert "could be graded" in rows["outage"]["rubric/error_message"]
    assert rows["outage"]["rubric/apples/value"] is None
    assert rows["outage"]["rubric/apples/error_message"]
    assert out["metrics"]["rubric/mean"] == pytest.approx(0.75)


def test_evaluate_logs_the_run_to_mlflow(
    tmp_path: Path, chat_server: ChatServer, capsys: pytest.CaptureFixture[str]
) -> None:
    from rubricjudge import Rubric, RubricDataset

    chat_server.handler = fruit_reply
    rubric = Rubric.from_file(write_rubric(tmp_path))
    ds = RubricDataset(prompt="Name fruit.", rubric=rubric, name="fruit")
    ds.add_item("apples and bananas", id="a", ground_truth=["MET", "MET"])
    ds.add_item("only apples", id="b", ground_truth=["MET", "MET"])  # the judge says UNMET
    ds.add_item("pears", id="c", ground_truth=["UNMET", "UNMET"])
    ds.to_file(tmp_path / "fruit.json")
    argv = ["-m", "rubricjudge._cli.main", "evaluate", "fruit.json", "--judge", "openai/m"]
    argv += ["--base-url", chat_server.base_url, "--run-dir", "run", "--mlflow", "nightly"]
    _run(argv, tmp_path)
    got = _run(["-c", READ, "nightly"], tmp_path)
    assert got["params"]["judge"] == "openai/m" and got["params"]["rubric"] == "fruit"
    assert got["params"]["grader"] == "per-criterion" and got["params"]["items"] == "3"
    metrics = got["metrics"]
    assert metrics["score_mean"] == pytest.approx(0.5) and metrics["items_graded"] == 3
    assert metrics["items_failed"] == 0 and metrics["judge_calls"] == 6
    assert metrics["agreement/apples/accuracy"] == 1.0
    assert metrics["agreement/bananas/accuracy"] == pytest.approx(2 / 3)
    assert set(got["artifacts"]) == {"summary.json", "report.html"}


def test_mlflow_without_items_graded_logs_no_mean(tmp_path: Path, chat_server: ChatServer) -> None:
    # every judge call fails: no score_mean at all (never a 0), the failures counted
    from rubricjudge import Rubric, RubricDataset

    chat_server.handler = lambda body: Reply.error(400, "the judge refuses")  # not retried
    ds = RubricDataset(prompt="Name fruit.", rubric=Rubric.from_file(write_rubric(tmp_path)))
    ds.add_item("FAIL", id="x")
    ds.to_file(tmp_path / "down.json")
    argv = ["-m", "rubricjudge._cli.main", "evaluate", "down.json", "--judge", "openai/m"]
    argv += ["--base-url", chat_server.base_url, "--mlflow", "down"]
    _run(argv, tmp_path, exit_code=1)  # an item without a score: evaluate exits 1, and logs it
    got = _run(["-c", READ, "down"], tmp_path)
    assert "score_mean" not in got["metrics"]
    assert got["metrics"]["items_with_judge_errors"] + got["metrics"]["items_failed"] >= 1
    assert got["artifacts"] == ["summary.json"]
