"""rubricjudge: rubric-based evaluation of LLM outputs.

The names a user of the quick start and the main flows needs are here; the rest
live in public topic modules, each with its own ``__all__``:

- ``rubricjudge.errors``: the whole error tree
- ``rubricjudge.judges``, ``rubricjudge.graders``, ``rubricjudge.reports``
- ``rubricjudge.formats``, ``rubricjudge.runs``, ``rubricjudge.metrics``, ``rubricjudge.lint``
- ``rubricjudge.hybrid``, ``rubricjudge.methods``, ``rubricjudge.registry``,
  ``rubricjudge.review``, ``rubricjudge.rewards``
- the seeds' names: ``rubricjudge.dataknobs``, ``rubricjudge.rubric_pkg``,
  ``rubricjudge.openrubricrl``; Ray: ``rubricjudge.integrations.ray``

Every name loads on first use, so ``import rubricjudge`` (and with it the CLI,
before it can catch Ctrl-C) costs almost nothing; the topic modules load theirs
as usual.
"""

from __future__ import annotations

import os as _os
import sys as _sys


def _interrupted_early(signum: int, frame: object) -> None:
    """Ctrl-C before the command could catch it: the line and exit code it would give."""
    _os.write(2, b"rubricjudge: interrupted\n")
    _os._exit(130)


# The `rubricjudge` command's first lines run here, as its script imports the package:
# from now on Ctrl-C ends it with exit code 130 and one line, not a traceback from the
# middle of an import. `rubricjudge._cli.main.main` hands Ctrl-C back to Python (as
# KeyboardInterrupt) once it can catch it. Only `os` and `sys` are loaded this early,
# and builtin `_signal` costs nothing (`signal` would load `enum` first).
if _sys.argv and _os.path.basename(_sys.argv[0]) in (
    "rubricjudge",
    "rubricjudge.exe",
    "rubricjudge-script.py",
):
    _signal = __import__("_signal")
    if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:  # not ignored
        _signal.signal(_signal.SIGINT, _interrupted_early)

from typing import TYPE_CHECKING  # noqa: E402 - after the handler: typing takes a while

from ._lazy import lazy_exports as _lazy_exports  # noqa: E402
from ._version import __version__ as __version__  # noqa: E402

if TYPE_CHECKING:
    from ._calibration._groups import Calibration
    from ._datasets._bundled import example_datasets, load_example_dataset
    from ._datasets._dataset import DataItem
    from ._datasets._io import RubricDataset
    from ._errors import (
        ConfigError,
        DatasetError,
        JudgeError,
        JudgeParseError,
        Problem,
        RubricError,
        RubricJudgeError,
        RunError,
        UsageError,
        VerdictError,
    )
    from ._formats._load import load_rubrics, validate_data
    from ._graders._base import Grader
    from ._graders._combine import FailurePolicy
    from ._graders._criterion import CriterionGrader
    from ._graders._ensemble import JudgeSpec
    from ._graders._holistic import RubricAsJudgeGrader
    from ._graders._llm_config import LLMConfig
    from ._graders._oneshot import PerCriterionOneShotGrader
    from ._graders._spec import GraderSpec
    from ._hybrid._grader import HybridGrader
    from ._judges._base import (
        Judge,
        JudgeConfig,
        JudgeRequest,
        JudgeResponse,
    )
    from ._judges._callable import (
        CallableJudge,
    )
    from ._judges._fake import (
        FakeJudge,
    )
    from ._judges._registry import (
        get_judge,
        register_judge,
    )
    from ._lint._rules import lint_rubric
    from ._metrics._compute import compute_metrics
    from ._model._criterion import (
        CalibrationExample,
        Criterion,
        CriterionOption,
        CriterionVerdict,
        Scale,
        ScaleType,
        ScoringMethod,
        ScoringType,
    )
    from ._model._reports import CriterionReport, EvaluationReport
    from ._model._rubric import HybridMetric, Rubric
    from ._model._scoring import CannotAssessStrategy, ScoringPolicy
    from ._report._write import write_report
    from ._rewards._reward import RubricReward
    from ._runs._calibrate import calibrate
    from ._runs._evaluate import evaluate, evaluate_sync
    from ._runs._result import RunResult

_LAZY: dict[str, str] = {
    "DataItem": "._datasets._dataset",
    "RubricDataset": "._datasets._io",
    "example_datasets": "._datasets._bundled",
    "load_example_dataset": "._datasets._bundled",
    "ConfigError": "._errors",
    "DatasetError": "._errors",
    "JudgeError": "._errors",
    "JudgeParseError": "._errors",
    "Problem": "._errors",
    "RubricError": "._errors",
    "RubricJudgeError": "._errors",
    "RunError": "._errors",
    "UsageError": "._errors",
    "VerdictError": "._errors",
    "load_rubrics": "._formats._load",
    "validate_data": "._formats._load",
    "CriterionGrader": "._graders._criterion",
    "FailurePolicy": "._graders._combine",
    "Grader": "._graders._base",
    "GraderSpec": "._graders._spec",
    "JudgeSpec": "._graders._ensemble",
    "LLMConfig": "._graders._llm_config",
    "PerCriterionOneShotGrader": "._graders._oneshot",
    "RubricAsJudgeGrader": "._graders._holistic",
    "Judge": "._judges._base",
    "JudgeConfig": "._judges._base",
    "JudgeRequest": "._judges._base",
    "JudgeResponse": "._judges._base",
    "CallableJudge": "._judges._callable",
    "FakeJudge": "._judges._fake",
    "get_judge": "._judges._registry",
    "register_judge": "._judges._registry",
    "CalibrationExample": "._model._criterion",
    "CannotAssessStrategy": "._model._scoring",
    "Criterion": "._model._criterion",
    "CriterionOption": "._model._criterion",
    "CriterionReport": "._model._reports",
    "CriterionVerdict": "._model._criterion",
    "EvaluationReport": "._model._reports",
    "HybridMetric": "._model._rubric",
    "Rubric": "._model._rubric",
    "Scale": "._model._criterion",
    "ScaleType": "._model._criterion",
    "ScoringMethod": "._model._criterion",
    "ScoringPolicy": "._model._scoring",
    "ScoringType": "._model._criterion",
    "Calibration": "._calibration._groups",
    "HybridGrader": "._hybrid._grader",
    "lint_rubric": "._lint._rules",
    "compute_metrics": "._metrics._compute",
    "write_report": "._report._write",
    "RubricReward": "._rewards._reward",
    "RunResult": "._runs._result",
    "calibrate": "._runs._calibrate",
    "evaluate": "._runs._evaluate",
    "evaluate_sync": "._runs._evaluate",
}


__getattr__, __dir__ = _lazy_exports(__name__, _LAZY, globals())


__all__ = [
    "Calibration",
    "CalibrationExample",
    "CallableJudge",
    "CannotAssessStrategy",
    "ConfigError",
    "Criterion",
    "CriterionGrader",
    "CriterionOption",
    "CriterionReport",
    "CriterionVerdict",
    "DataItem",
    "DatasetError",
    "EvaluationReport",
    "FailurePolicy",
    "FakeJudge",
    "Grader",
    "GraderSpec",
    "HybridGrader",
    "HybridMetric",
    "Judge",
    "JudgeConfig",
    "JudgeError",
    "JudgeParseError",
    "JudgeRequest",
    "JudgeResponse",
    "JudgeSpec",
    "LLMConfig",
    "PerCriterionOneShotGrader",
    "Problem",
    "Rubric",
    "RubricAsJudgeGrader",
    "RubricDataset",
    "RubricError",
    "RubricJudgeError",
    "RubricReward",
    "RunError",
    "RunResult",
    "Scale",
    "ScaleType",
    "ScoringMethod",
    "ScoringPolicy",
    "ScoringType",
    "UsageError",
    "VerdictError",
    "calibrate",
    "compute_metrics",
    "evaluate",
    "evaluate_sync",
    "example_datasets",
    "get_judge",
    "lint_rubric",
    "load_example_dataset",
    "load_rubrics",
    "register_judge",
    "validate_data",
    "write_report",
]
