"""A promptfoo Python assertion grading with a rubricjudge rubric (``pip install rubricjudge``).

promptfoo (0.12x, from npm) calls ``get_assert(output, context)`` of a Python file named
in an assertion. Point it at this one through a one-line file::

    # rubric_assert.py
    from rubricjudge.integrations.promptfoo import get_assert

and in ``promptfooconfig.yaml``::

    defaultTest:
      assert:
        - type: python
          value: file://rubric_assert.py
          config:
            rubric: rubric.yaml                 # relative to promptfoo's working directory
            judge: openai/gpt-4.1-mini          # any rubricjudge judge spec
            threshold: 0.7                      # default: the rubric's pass_threshold, else 0.5
            # query_var: question               # a var holding the query (default: the prompt)
            # reference_var: expected           # a var holding a reference answer
            # judge_options: {timeout_s: 30}

The result is promptfoo's ``GradingResult``: ``pass`` (score >= threshold),
``score`` (the rubric's, in [0, 1]), ``reason`` (one line per criterion),
``componentResults`` (one per criterion: pass when MET, or for an option or scale
its value, score, the judge's reason) and ``namedScores`` (each criterion's value).
An output no judge could grade raises, which promptfoo reports as a failed
assertion whose reason is the error: never a score of ours.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .._errors import ConfigError, JudgeError
from .._graders._criterion import CriterionGrader
from .._model._reports import EvaluationReport
from .._model._rubric import Rubric
from ._explain import answer_of, explain_report, leaves, name_of

__all__ = ["get_assert", "grading_result"]

_graders: dict[tuple[str, str], Any] = {}


def get_assert(output: Any, context: dict[str, Any]) -> dict[str, Any]:
    """Promptfoo's entry: grade ``output`` against the rubric the assertion's config names.

    Raises:
        ConfigError: the config names no rubric, or a var it names is missing.
        JudgeError: no judge could grade the output.
    """
    config = dict(context.get("config") or {})
    rubric_path = config.get("rubric")
    if not rubric_path:
        raise ConfigError("the assertion's config needs rubric: (a rubric file)")
    rubric = Rubric.from_file(Path(rubric_path))
    variables = context.get("vars") or {}
    query = _var(variables, config.get("query_var")) if config.get("query_var") else None
    if query is None:
        query = context.get("prompt")
    reference = (
        _var(variables, config.get("reference_var")) if config.get("reference_var") else None
    )
    threshold = config.get("threshold")
    if threshold is None:
        threshold = rubric.pass_threshold if rubric.pass_threshold is not None else 0.5
    grader = _grader(str(config.get("judge", "local")), dict(config.get("judge_options") or {}))
    report: EvaluationReport = grader.grade_sync(
        rubric,
        output if isinstance(output, str) else str(output),
        query=None if query is None else str(query),
        reference_submission=None if reference is None else str(reference),
    )
    return grading_result(report, float(threshold))


def grading_result(report: EvaluationReport, threshold: float) -> dict[str, Any]:
    """The report as promptfoo's GradingResult (raises when it has no score).

    Raises:
        JudgeError: the report has no score.
    """
    if report.score is None:
        error = report.error or "no criterion could be graded"
        # one line: promptfoo reports the last line of a Python error as its reason
        raise JudgeError(f"the rubric could not be graded: {' '.join(error.split())}")
    components = []
    named: dict[str, float] = {}
    for c in leaves(report):
        answer = answer_of(c)
        if c.error is not None:
            components.append(
                {"pass": False, "score": 0, "reason": f"{name_of(c)}: judge failed: {c.error}"}
            )
            continue
        if c.selection is not None:
            value = c.selection.value
        elif c.scale_score is not None:
            value = c.scale_score.value
        else:
            value = 1.0 if answer == "MET" else 0.0
        named[name_of(c)] = value
        components.append(
            {
                "pass": answer == "MET" if c.verdict is not None else value > 0,
                "score": value,
                "reason": f"{name_of(c)}: {answer}" + (f": {c.reason}" if c.reason else ""),
            }
        )
    return {
        "pass": report.score >= threshold,
        "score": report.score,
        "reason": f"rubric score {report.score:.3g} (threshold {threshold:g})\n"
        + explain_report(report),
        "componentResults": components,
        "namedScores": named,
    }


def _var(variables: dict[str, Any], name: Any) -> Any:
    if name not in variables:
        raise ConfigError(
            f"the test has no var {name!r} (named in the assertion's config); "
            f"its vars are: {', '.join(map(str, variables)) or 'none'}"
        )
    return variables[name]


def _grader(judge: str, options: dict[str, Any]) -> Any:
    """One grader per judge and options for the process (promptfoo may keep it alive)."""
    import json

    key = (judge, json.dumps(options, sort_keys=True, default=str))
    if key not in _graders:
        _graders[key] = CriterionGrader(judge=judge, judge_options=options)
    return _graders[key]
