"""``evaluate --mlflow EXPERIMENT``: a finished run logged as an MLflow run.

Parameters: the rubric, the judge(s), the grader, the calibration and the dataset.
Metrics: the mean score, items graded and failed, judge calls, and, when the dataset
has human labels, each criterion's agreement with them (``agreement/<criterion>/<metric>``).
Artifacts: the run summary (``summary.json``) and, with a run directory, the HTML
report (``report.html``). The tracking store is MLflow's: ``MLFLOW_TRACKING_URI``
(a server, or ``sqlite:///mlflow.db``). MLflow is imported only here.
"""

from __future__ import annotations

import math
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from ._write import write_report

__all__ = ["log_to_mlflow"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_\-. /]")


def _mlflow() -> Any:
    try:
        import mlflow
    except ImportError:
        raise ConfigError("--mlflow needs MLflow: pip install 'rubricjudge[mlflow]'") from None
    return mlflow


def _metric_name(text: str) -> str:
    return _UNSAFE.sub("_", text)


def _agreement(result: Any, dataset: Any) -> dict[str, float]:
    labelled = any(getattr(item, "ground_truth", None) for item in dataset.items)
    if not labelled:
        return {}
    # deferred: agreement loads numpy, needed only for a labelled dataset
    from .._metrics._compute import compute_metrics

    report = compute_metrics(result, dataset).to_jsonable()
    out: dict[str, float] = {}
    for c in report.get("criteria", []):
        for name, value in (c.get("metrics") or {}).items():
            if isinstance(value, int | float) and math.isfinite(value):
                out[_metric_name(f"agreement/{c['key']}/{name}")] = float(value)
    return out


def log_to_mlflow(
    experiment: str,
    result: Any,
    dataset: Any,
    params: Mapping[str, Any],
    *,
    run_dir: str | Path | None = None,
) -> str:
    """Log a finished run to ``experiment``; returns the MLflow run id.

    Raises:
        ConfigError: MLflow is not installed.
    """
    mlflow = _mlflow()
    summary = result.summary
    metrics: dict[str, float] = {
        "items_graded": summary.items_graded,
        "items_failed": summary.items_failed,
        "items_with_judge_errors": summary.items_with_judge_errors,
        "judge_calls": summary.judge_calls,
    }
    if summary.score_mean is not None:  # no item graded: no mean, never a 0
        metrics["score_mean"] = summary.score_mean
    metrics.update(_agreement(result, dataset))
    mlflow.set_experiment(experiment)
    with mlflow.start_run() as run:
        mlflow.log_params({k: str(v)[:6000] for k, v in params.items() if v is not None})
        mlflow.log_metrics(metrics)
        mlflow.log_dict(summary.model_dump(mode="json"), "summary.json")
        if run_dir is not None:
            with tempfile.TemporaryDirectory() as tmp:
                page = write_report(run_dir, Path(tmp) / "report.html")
                mlflow.log_artifact(str(page))
        run_id: str = run.info.run_id
    return run_id
