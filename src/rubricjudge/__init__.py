"""rubricjudge: rubric-based evaluation of LLM outputs.

Everything public is re-exported here; the modules behind it are private.
Names from the heavier modules (runs, metrics, registry, ...) load on first use
so that ``import rubricjudge`` stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._datasets import (
    DataItem,
    RubricDataset,
)
from ._datasets._examples import (
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
    convert_rubric,
    detect_format,
    load_rubrics,
    rubric_json_schema,
    validate_data,
)
from ._graders import (
    CriterionGrader,
    FailurePolicy,
    FewShotExample,
    GradePlan,
    Grader,
    GraderSpec,
    JudgeSpec,
    LengthPenalty,
    LLMConfig,
    PerCriterionGrader,
    PerCriterionOneShotGrader,
    RubricAsJudgeGrader,
    compute_length_penalty,
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
from ._judges._reliable import (
    ReliableJudge,
)
from ._model._reports import (
    CalibrationRecord,
    CriterionReport,
    Escalation,
    EvaluationReport,
    EvidenceCheck,
    JudgeVote,
    MetricResult,
    OptionSelection,
    ScaleScore,
    SectionScore,
    TokenUsage,
)
from ._model._rubric import (
    CalibrationExample,
    Criterion,
    CriterionOption,
    CriterionVerdict,
    HybridMetric,
    Rubric,
    Scale,
    ScaleType,
    ScoringMethod,
    ScoringType,
)
from ._model._scoring import (
    CannotAssessStrategy,
    ScoringPolicy,
)
from ._version import __version__ as __version__

if TYPE_CHECKING:
    from ._calibration import (
        Calibration,
    )
    from ._dataknobs._names import (
        RubricCriterion,
        RubricExecutor,
        RubricLevel,
    )
    from ._graders._mixed import evaluate_rubric, evaluate_rubric_sync
    from ._hybrid import (
        HybridGrader,
        MetricError,
        register_metric,
    )
    from ._judges._fleet import (
        EndpointStats,
    )
    from ._lint._meta import (
        build_meta_rubric,
    )
    from ._lint._rules import (
        LintFinding,
        lint_rubric,
    )
    from ._methods import FunctionRegistry, run_method
    from ._methods._feedback import (
        generate_criterion_feedback,
        generate_deterministic_summary,
        generate_feedback_summary,
    )
    from ._metrics import (
        MetricsReport,
        compute_metrics,
        fleiss_kappa,
        krippendorff_alpha,
    )
    from ._registry import (
        RegistryError,
        RubricNotFound,
        RubricRegistry,
        RubricVersion,
        StorageError,
        VersionConflict,
    )
    from ._report import (
        write_report,
    )
    from ._review._artifacts import (
        Artifact,
        ArtifactStatus,
        ArtifactStore,
        IllegalTransition,
    )
    from ._rewards._reward import (
        RewardError,
        RubricReward,
    )
    from ._runs import (
        BatchOptions,
        RunResult,
        RunSummary,
        evaluate,
        evaluate_sync,
    )

_LAZY: dict[str, str] = {
    "Artifact": "._review",
    "BatchOptions": "._runs",
    "Calibration": "._calibration",
    "ArtifactStatus": "._review",
    "ArtifactStore": "._review",
    "EndpointStats": "._judges._fleet",
    "FunctionRegistry": "._methods",
    "HybridGrader": "._hybrid",
    "IllegalTransition": "._review",
    "LintFinding": "._lint",
    "MetricError": "._hybrid",
    "MetricsReport": "._metrics",
    "RegistryError": "._registry",
    "RewardError": "._rewards",
    "RubricCriterion": "._dataknobs",
    "RubricExecutor": "._dataknobs",
    "RubricLevel": "._dataknobs",
    "RubricNotFound": "._registry",
    "RubricRegistry": "._registry",
    "RubricReward": "._rewards",
    "RubricVersion": "._registry",
    "RunResult": "._runs",
    "RunSummary": "._runs",
    "StorageError": "._registry",
    "VersionConflict": "._registry",
    "build_meta_rubric": "._lint",
    "write_report": "._report",
    "compute_metrics": "._metrics",
    "evaluate": "._runs",
    "evaluate_rubric": "._graders._mixed",
    "evaluate_rubric_sync": "._graders._mixed",
    "evaluate_sync": "._runs",
    "fleiss_kappa": "._metrics",
    "generate_criterion_feedback": "._methods._feedback",
    "generate_deterministic_summary": "._methods._feedback",
    "generate_feedback_summary": "._methods._feedback",
    "krippendorff_alpha": "._metrics",
    "lint_rubric": "._lint",
    "register_metric": "._hybrid",
    "run_method": "._methods",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'rubricjudge' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "Artifact",
    "ArtifactStatus",
    "ArtifactStore",
    "BatchOptions",
    "Calibration",
    "CalibrationExample",
    "CalibrationRecord",
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
    "EndpointStats",
    "Escalation",
    "EvaluationReport",
    "EvidenceCheck",
    "FailurePolicy",
    "FakeJudge",
    "FewShotExample",
    "FunctionRegistry",
    "GradePlan",
    "Grader",
    "GraderSpec",
    "HybridGrader",
    "HybridMetric",
    "IllegalTransition",
    "Judge",
    "JudgeConfig",
    "JudgeError",
    "JudgeParseError",
    "JudgeRequest",
    "JudgeResponse",
    "JudgeSpec",
    "JudgeVote",
    "LLMConfig",
    "LengthPenalty",
    "LintFinding",
    "MetricError",
    "MetricResult",
    "MetricsReport",
    "OptionSelection",
    "PerCriterionGrader",
    "PerCriterionOneShotGrader",
    "Problem",
    "RegistryError",
    "ReliableJudge",
    "RewardError",
    "Rubric",
    "RubricAsJudgeGrader",
    "RubricCriterion",
    "RubricDataset",
    "RubricError",
    "RubricExecutor",
    "RubricJudgeError",
    "RubricLevel",
    "RubricNotFound",
    "RubricRegistry",
    "RubricReward",
    "RubricVersion",
    "RunError",
    "RunResult",
    "RunSummary",
    "Scale",
    "ScaleScore",
    "ScaleType",
    "ScoringMethod",
    "ScoringPolicy",
    "ScoringType",
    "SectionScore",
    "StorageError",
    "TokenUsage",
    "UsageError",
    "VerdictError",
    "VersionConflict",
    "build_meta_rubric",
    "compute_length_penalty",
    "compute_metrics",
    "convert_rubric",
    "detect_format",
    "evaluate",
    "evaluate_rubric",
    "evaluate_rubric_sync",
    "evaluate_sync",
    "example_datasets",
    "fleiss_kappa",
    "generate_criterion_feedback",
    "generate_deterministic_summary",
    "generate_feedback_summary",
    "get_judge",
    "krippendorff_alpha",
    "lint_rubric",
    "load_example_dataset",
    "load_rubrics",
    "register_judge",
    "register_metric",
    "rubric_json_schema",
    "run_method",
    "validate_data",
    "write_report",
]
