"""An Inspect AI scorer grading with a rubricjudge rubric (``pip install 'rubricjudge[inspect]'``).

Written against Inspect AI 0.3.28x::

    from inspect_ai import Task, task
    from inspect_ai.dataset import Sample
    from inspect_ai.solver import generate
    from rubricjudge.integrations.inspect import rubric_scorer

    @task
    def explain():
        return Task(
            dataset=[Sample(input="Why is the sky blue?", target="Rayleigh scattering")],
            solver=generate(),
            scorer=rubric_scorer("rubric.yaml"),   # graded by the "grader" model role
        )

    # inspect eval explain.py --model openai/gpt-4.1 --model-role grader=openai/gpt-4.1-mini

The score's value is the rubric's score in [0, 1] (Inspect's ``mean`` and
``stderr`` metrics apply); its explanation lists each criterion's verdict and
reason; its metadata holds the full report (``metadata["rubricjudge"]``). An
item no judge could grade is an *unscored* score (``Score.unscored``, value NaN,
reason ``grader_failed``), which Inspect leaves out of its metrics; never a
number. ``on_failure="error"`` raises instead, so Inspect records a sample error.

The default judge, :class:`InspectJudge`, asks the model bound to the
``model_role`` (``"grader"``: ``--model-role grader=...`` or ``eval(...,
model_roles=...)``); with no model bound, Inspect's convention applies: the
model under evaluation grades. ``judge=`` also takes any rubricjudge judge spec
(``"openai/gpt-4.1-mini"``, ``"local"``) or :class:`~rubricjudge.judges.Judge`.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Literal

from inspect_ai.model import (
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    ResponseSchema,
    get_model,
)
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState
from inspect_ai.util import JSONSchema

from .._errors import ConfigError, JudgeError
from .._graders._criterion import CriterionGrader
from .._judges._base import JudgeConfig, JudgeRequest, JudgeResponse
from .._judges._parse import parse_json_reply
from .._model._reports import EvaluationReport, TokenUsage
from .._model._rubric import Rubric
from ._explain import explain_report

__all__ = ["InspectJudge", "rubric_scorer"]


class InspectJudge:
    """A rubricjudge judge answered by an Inspect model: a model role's, or a named model.

    Args:
        role: the model role to ask (default ``"grader"``); ignored when ``model`` is given.
        model: an Inspect model name (``"openai/gpt-4.1-mini"``) or ``Model`` instead.
        config: temperature, seed and max tokens for requests that set none.
    """

    def __init__(
        self, role: str = "grader", *, model: Any = None, config: JudgeConfig | None = None
    ) -> None:
        self.role = role
        self.model = model
        self.config = config or JudgeConfig()

    @property
    def name(self) -> str:
        """``inspect/<role>`` or ``inspect/<model>``."""
        if self.model is not None:
            return f"inspect/{self.model if isinstance(self.model, str) else self.model.name}"
        return f"inspect/{self.role}"

    async def judge(self, request: JudgeRequest) -> JudgeResponse:
        """Ask the Inspect model; its reply is read as the JSON object the request asks for.

        Raises:
            JudgeError: the model raised or reported an error, or its reply is no object.
        """
        model = get_model(self.model) if self.model is not None else get_model(role=self.role)
        temperature = request.temperature
        config = GenerateConfig(
            temperature=self.config.temperature if temperature is None else temperature,
            seed=request.seed if request.seed is not None else self.config.seed,
            max_tokens=request.max_tokens or self.config.max_tokens,
            response_schema=ResponseSchema(
                name=request.schema_name,
                json_schema=JSONSchema.model_validate(dict(request.schema)),
            ),
        )
        messages: list[Any] = [
            ChatMessageSystem(content=request.system),
            ChatMessageUser(content=request.user),
        ]
        started = time.perf_counter()
        try:
            output = await model.generate(messages, config=config)
        except Exception as e:  # the provider's own error, after Inspect's retries
            raise JudgeError(f"{type(e).__name__}: {e}", category="unknown") from e
        if output.error:
            raise JudgeError(str(output.error), category="server")
        text = output.completion
        try:
            data = parse_json_reply(text)
        except ValueError as e:
            raise JudgeError(str(e), category="parse", raw_text=text) from None
        usage = None
        if output.usage is not None:
            u = output.usage
            usage = TokenUsage(
                prompt_tokens=u.input_tokens,
                completion_tokens=u.output_tokens,
                total_tokens=u.total_tokens,
            )
        return JudgeResponse(
            data=data,
            raw_text=text,
            usage=usage,
            latency_s=time.perf_counter() - started,
            model=output.model or str(model),
        )


@scorer(metrics=[mean(), stderr()], name="rubricjudge")
def rubric_scorer(
    rubric: Rubric | str | Path,
    judge: Any = None,
    *,
    model_role: str = "grader",
    judge_options: dict[str, Any] | None = None,
    on_failure: Literal["unscored", "error"] = "unscored",
) -> Scorer:
    """A scorer grading each sample's completion against ``rubric``.

    Args:
        rubric: a rubric or rubric file (any format rubricjudge reads).
        judge: None: :class:`InspectJudge` on ``model_role``; else a rubricjudge
            judge spec, :class:`~rubricjudge.judges.Judge` or grader.
        model_role: the Inspect model role the default judge asks.
        judge_options: options for a judge spec (``base_url``, ``timeout_s`` ...).
        on_failure: an item no judge could grade: ``"unscored"`` (default; left out
            of the metrics) or ``"error"`` (raise: Inspect records a sample error).

    The sample's input is the query, its target (when it has one) the reference
    answer shown to the judge.
    """
    if on_failure not in ("unscored", "error"):
        raise ConfigError(f"on_failure {on_failure!r}: use 'unscored' or 'error'")
    the_rubric = rubric if isinstance(rubric, Rubric) else Rubric.from_file(rubric)
    grader = _grader(judge, model_role, judge_options)

    async def score(state: TaskState, target: Target) -> Score:
        completion = state.output.completion
        reference = target.text if len(target) else None
        report: EvaluationReport = await grader.grade(
            the_rubric,
            completion,
            query=state.input_text,
            reference_submission=reference,
            item_id=str(state.sample_id),
        )
        metadata = {"rubricjudge": report.model_dump(mode="json")}
        if report.score is None:
            error = report.error or "no criterion could be graded"
            if on_failure == "error":
                raise JudgeError(f"the rubric could not be graded: {error}")
            return Score.unscored(
                reason="grader_failed",
                answer=completion,
                explanation=f"{error}\n{explain_report(report)}",
                metadata=metadata,
            )
        return Score(
            value=report.score,
            answer=completion,
            explanation=explain_report(report),
            metadata=metadata,
        )

    return score


def _grader(judge: Any, role: str, options: dict[str, Any] | None) -> Any:
    if judge is not None and hasattr(judge, "grade") and hasattr(judge, "judge_ids"):
        return judge  # a grader already

    if judge is None:
        judge = InspectJudge(role)
    return CriterionGrader(judge=judge, judge_options=dict(options or {}))
