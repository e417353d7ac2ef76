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
    from ._calibration import (
        Calibration,
    )
    from ._datasets import (
        DataItem,
        RubricDataset,
        example_datasets,
        load_example_dataset,
    )
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
    from ._formats import (
        load_rubrics,
        validate_data,
    )
    from ._graders import (
        CriterionGrader,
        FailurePolicy,
        Grader,
        GraderSpec,
        JudgeSpec,
        LLMConfig,
        PerCriterionOneShotGrader,
        RubricAsJudgeGrader,
    )
    from ._hybrid import (
        HybridGrader,
    )
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
    from ._lint import (
        lint_rubric,
    )
    from ._metrics import (
        compute_metrics,
    )
    from ._model import (
        CalibrationExample,
        CannotAssessStrategy,
        Criterion,
        CriterionOption,
        CriterionReport,
        CriterionVerdict,
        EvaluationReport,
        HybridMetric,
        Rubric,
        Scale,
        ScaleType,
        ScoringMethod,
        ScoringPolicy,
        ScoringType,
    )
    from ._report import (
        write_report,
    )
    from ._rewards import (
        RubricReward,
    )
    from ._runs import (
        RunResult,
        calibrate,
        evaluate,
        evaluate_sync,
    )

_LAZY: dict[str, str] = {
    "DataItem": "._datasets",
    "RubricDataset": "._datasets",
    "example_datasets": "._datasets",
    "load_example_dataset": "._datasets",
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
    "load_rubrics": "._formats",
    "validate_data": "._formats",
    "CriterionGrader": "._graders",
    "FailurePolicy": "._graders",
    "Grader": "._graders",
    "GraderSpec": "._graders",
    "JudgeSpec": "._graders",
    "LLMConfig": "._graders",
    "PerCriterionOneShotGrader": "._graders",
    "RubricAsJudgeGrader": "._graders",
    "Judge": "._judges._base",
    "JudgeConfig": "._judges._base",
    "JudgeRequest": "._judges._base",
    "JudgeResponse": "._judges._base",
    "CallableJudge": "._judges._callable",
    "FakeJudge": "._judges._fake",
    "get_judge": "._judges._registry",
    "register_judge": "._judges._registry",
    "CalibrationExample": "._model",
    "CannotAssessStrategy": "._model",
    "Criterion": "._model",
    "CriterionOption": "._model",
    "CriterionReport": "._model",
    "CriterionVerdict": "._model",
    "EvaluationReport": "._model",
    "HybridMetric": "._model",
    "Rubric": "._model",
    "Scale": "._model",
    "ScaleType": "._model",
    "ScoringMethod": "._model",
    "ScoringPolicy": "._model",
    "ScoringType": "._model",
    "Calibration": "._calibration",
    "HybridGrader": "._hybrid",
    "lint_rubric": "._lint",
    "compute_metrics": "._metrics",
    "write_report": "._report",
    "RubricReward": "._rewards",
    "RunResult": "._runs",
    "calibrate": "._runs",
    "evaluate": "._runs",
    "evaluate_sync": "._runs",
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
