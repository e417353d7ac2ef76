"""The public surface: exactly what ``rubricjudge.__all__`` and the topic modules list."""

import importlib
import inspect
import subprocess
import sys

import pytest

import rubricjudge

TOP_LEVEL = [
    "CalibrationExample",
    "Calibration",
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

TOPIC_MODULES = [
    "authoring",
    "conversations",
    "dataknobs",
    "errors",
    "formats",
    "graders",
    "hybrid",
    "integrations.pytest",
    "integrations.ray",
    "judges",
    "lint",
    "methods",
    "metrics",
    "openrubricrl",
    "registry",
    "reports",
    "review",
    "rewards",
    "rubric_pkg",
    "runs",
]

# every name that left the top level, and the public module it lives in now
MOVED = {
    "Artifact": "review",
    "ArtifactStatus": "review",
    "ArtifactStore": "review",
    "BatchOptions": "runs",
    "CalibrationRecord": "reports",
    "EndpointStats": "judges",
    "Escalation": "reports",
    "EvidenceCheck": "reports",
    "FewShotExample": "graders",
    "FunctionRegistry": "methods",
    "GradePlan": "graders",
    "IllegalTransition": "review",
    "JudgeVote": "reports",
    "LengthPenalty": "graders",
    "LintFinding": "lint",
    "MetricError": "hybrid",
    "MetricResult": "reports",
    "MetricsReport": "metrics",
    "OptionSelection": "reports",
    "PerCriterionGrader": "rubric_pkg",
    "RegistryError": "registry",
    "ReliableJudge": "judges",
    "RewardError": "rewards",
    "RubricCriterion": "dataknobs",
    "RubricExecutor": "dataknobs",
    "RubricLevel": "dataknobs",
    "RubricNotFound": "registry",
    "RubricRegistry": "registry",
    "RubricVersion": "registry",
    "RunSummary": "runs",
    "ScaleScore": "reports",
    "SectionScore": "reports",
    "StorageError": "registry",
    "TokenUsage": "reports",
    "VersionConflict": "registry",
    "build_meta_rubric": "lint",
    "compute_length_penalty": "graders",
    "convert_rubric": "formats",
    "detect_format": "formats",
    "evaluate_rubric": "methods",
    "evaluate_rubric_sync": "methods",
    "fleiss_kappa": "metrics",
    "generate_criterion_feedback": "methods",
    "generate_deterministic_summary": "methods",
    "generate_feedback_summary": "methods",
    "krippendorff_alpha": "metrics",
    "register_metric": "hybrid",
    "rubric_json_schema": "formats",
    "run_method": "methods",
}


def test_all_is_exactly_the_public_names() -> None:
    assert rubricjudge.__all__ == sorted(rubricjudge.__all__)
    assert rubricjudge.__all__ == sorted(TOP_LEVEL)
    assert len(rubricjudge.__all__) <= 60


def test_all_is_sorted_and_complete() -> None:
    public = {name for name in dir(rubricjudge) if not name.startswith("_")}
    # submodules show up as attributes once imported; they are not public names
    public -= {"annotations", "importlib", "Any", "TYPE_CHECKING"} | {
        n for n in public if type(getattr(rubricjudge, n)) is type(rubricjudge)
    }
    assert set(rubricjudge.__all__) == public


def test_every_exported_name_resolves() -> None:
    for name in rubricjudge.__all__:
        assert getattr(rubricjudge, name) is not None, name


def test_every_public_name_has_a_docstring() -> None:
    for name in rubricjudge.__all__:
        obj = getattr(rubricjudge, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert (obj.__doc__ or "").strip(), name


@pytest.mark.parametrize("module", TOPIC_MODULES)
def test_each_topic_module_exports_what_it_lists(module: str) -> None:
    mod = importlib.import_module(f"rubricjudge.{module}")
    assert (mod.__doc__ or "").strip(), module
    assert mod.__all__ == sorted(mod.__all__, key=lambda s: (not s.isupper(), s)), module
    for name in mod.__all__:
        obj = getattr(mod, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert (obj.__doc__ or "").strip(), f"{module}.{name}"


def test_every_name_that_left_the_top_level_has_a_public_home() -> None:
    for name, module in MOVED.items():
        assert name not in rubricjudge.__all__, name
        mod = importlib.import_module(f"rubricjudge.{module}")
        assert name in mod.__all__, f"rubricjudge.{module}.{name}"


def test_one_class_per_name() -> None:
    seen: dict[str, object] = {}
    for module in ["", *TOPIC_MODULES]:
        mod = importlib.import_module("rubricjudge" + (f".{module}" if module else ""))
        for name in mod.__all__:
            obj = getattr(mod, name)
            if not inspect.isclass(obj):
                continue
            if module == "dataknobs" and name == "RubricRegistry":
                continue  # dataknobs' async registry, under the name dataknobs gives it
            assert seen.setdefault(name, obj) is obj, f"{name} names two classes"


def test_every_public_exception_is_in_the_one_tree() -> None:
    from rubricjudge import errors

    for module in ["", *TOPIC_MODULES]:
        mod = importlib.import_module("rubricjudge" + (f".{module}" if module else ""))
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.isclass(obj) and issubclass(obj, BaseException):
                assert issubclass(obj, rubricjudge.RubricJudgeError), name
                assert obj.__module__ == "rubricjudge._errors", name
                assert getattr(errors, name) is obj, name


def test_import_loads_no_optional_backend() -> None:
    code = (
        "import sys, rubricjudge; "
        "bad = [m for m in ('openai', 'anthropic', 'litellm', 'llama_cpp', 'sacrebleu', "
        "'starlette', 'psycopg', 'numpy', 'jinja2') if m in sys.modules]; print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
