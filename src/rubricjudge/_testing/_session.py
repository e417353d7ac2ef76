"""Rubric assertions for tests: one judge per session, its grader and grades cached.

The judge is what the pytest plugin was given (``--rubric-judge SPEC``, else the
``rubric_judge`` ini value), else ``local``. A session builds its grader once (the
local model loads once per test run), reads each rubric file once (again when it
changes), and grades an output against a rubric once: a second assertion on the
same output, rubric, query and reference reuses the grade. Grades with a judge
failure are not kept, so a transient failure is retried by the next assertion.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

from .._aio import run_sync
from .._errors import ConfigError, RubricAssertionError
from .._model._reports import EvaluationReport
from .._model._rubric import Rubric
from .._model._scoring import judge_failures, leaf_reports
from ._message import failure_message

__all__ = [
    "DEFAULT_JUDGE",
    "RubricJudgeSession",
    "assert_rubric",
    "configured_judge",
    "shared_session",
]

DEFAULT_JUDGE = "local"
_PLUGIN = "rubricjudge_pytest"  # the pytest plugin's module: it holds the judge it was given


def configured_judge() -> str:
    """The judge spec the pytest plugin was given, else ``local``.

    Read from the plugin's module when pytest loaded it, so that importing it is
    all the plugin does at start-up (it imports nothing of rubricjudge).
    """
    plugin = sys.modules.get(_PLUGIN)
    spec = getattr(plugin, "judge_spec", None) if plugin is not None else None
    return spec if isinstance(spec, str) and spec.strip() else DEFAULT_JUDGE


def _judge_name(judge: Any) -> str:
    if isinstance(judge, str):
        return judge
    return str(getattr(judge, "name", None) or type(judge).__name__)


def _output_key(output: Any) -> str:
    if isinstance(output, str):
        return output
    return json.dumps(output, sort_keys=True, ensure_ascii=False, default=repr)


class RubricJudgeSession:
    """Grades outputs against rubrics with one judge, caching for a whole test session.

    Args:
        judge: a judge spec (``"local"``, ``"openai/gpt-4.1-mini"``, ``"fake"``), a
            :class:`~rubricjudge.Judge`, a ``generate_fn`` callable, or a grader.
            Default: the judge the pytest plugin was given, else ``local``.
        cache: keep grades for reuse; default True for a spec (whose judge is the
            same for the whole session), False for a judge object (a scripted fake
            may answer differently each time).
    """

    def __init__(self, judge: Any = None, *, cache: bool | None = None) -> None:
        self.judge: Any = judge if judge is not None else configured_judge()
        self.cache = isinstance(self.judge, str) if cache is None else cache
        self._grader: Any = None
        self._rubrics: dict[tuple[str, int, int], Rubric] = {}
        self._reports: dict[tuple[str, ...], EvaluationReport] = {}
        self.graded = 0
        self.reused = 0

    @property
    def name(self) -> str:
        """The judge's name, as failure messages show it."""
        return _judge_name(self.judge)

    def grader(self, rubric: Rubric) -> Any:
        """The grader (built on first use); wrapped for hybrid metrics when ``rubric`` has them."""
        if self._grader is None:
            # deferred: the pytest plugin loads this module in every session; graders load
            # at the first rubric assertion
            from .._graders._base import Grader
            from .._graders._criterion import CriterionGrader

            judge = self.judge
            self._grader = judge if isinstance(judge, Grader) else CriterionGrader(judge=judge)
        if not rubric.hybrid_metrics:
            return self._grader
        from .._hybrid._combine import check_hybrid
        from .._hybrid._grader import HybridGrader

        if isinstance(self._grader, HybridGrader):
            return self._grader
        check_hybrid(rubric)
        return HybridGrader(self._grader)

    def rubric(self, rubric: Rubric | str | Path) -> tuple[Rubric, str]:
        """The rubric (a file is read once, and again when it changes) and its name."""
        if isinstance(rubric, Rubric):
            return rubric, repr(rubric.name or rubric.id or "(unnamed)")
        if not isinstance(rubric, str | Path):
            raise ConfigError(f"rubric {rubric!r} is not a Rubric or the path of a rubric file")
        path = Path(rubric)
        try:
            st = path.stat()
        except OSError as e:
            raise ConfigError(f"rubric file {str(path)!r} cannot be read ({e.strerror})") from None
        key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
        loaded = self._rubrics.get(key)
        if loaded is None:
            loaded = self._rubrics[key] = Rubric.from_file(path)
        return loaded, str(path)

    def _report_key(
        self, rubric: Rubric, output: Any, query: Any, reference: Any
    ) -> tuple[str, ...]:
        try:
            ident = rubric.model_dump_json()
        except ValueError:  # a rubric holding objects JSON cannot show: the object is the key
            ident = f"object {id(rubric)}"
        return (ident, _output_key(output), str(query), str(reference))

    def grade(
        self,
        output: Any,
        rubric: Rubric | str | Path,
        *,
        query: str | None = None,
        reference: str | None = None,
    ) -> EvaluationReport:
        """Grade ``output`` against ``rubric`` (a grade already made is reused)."""
        loaded, _ = self.rubric(rubric)
        return self._grade(loaded, output, query, reference)

    def _grade(
        self, rubric: Rubric, output: Any, query: str | None, reference: str | None
    ) -> EvaluationReport:
        key = self._report_key(rubric, output, query, reference) if self.cache else None
        if key is not None and key in self._reports:
            self.reused += 1
            return self._reports[key]
        grader = self.grader(rubric)
        report: EvaluationReport = run_sync(
            grader.grade(rubric, output, query=query, reference_submission=reference)
        )
        self.graded += 1
        if key is not None and report.error is None and not report.error_count:
            self._reports[key] = report
        return report

    def assert_rubric(
        self,
        output: Any,
        rubric: Rubric | str | Path,
        *,
        min_score: float | None = None,
        query: str | None = None,
        reference: str | None = None,
    ) -> EvaluationReport:
        """Grade ``output`` and raise unless its score is at least ``min_score``.

        ``min_score`` defaults to the rubric's ``pass_threshold``. A grade in which
        the judge failed on a criterion that carries weight fails too, as the scoring
        layer's rule says (``_scoring.judge_failures``): it decided nothing.

        Returns:
            The :class:`~rubricjudge.EvaluationReport`, for further checks.

        Raises:
            RubricAssertionError: the score is below ``min_score``, or there is none,
                or the judge failed; the message lists every criterion's verdict and
                reason.
            ConfigError: no ``min_score`` and no ``pass_threshold``, or a bad rubric.
        """
        __tracebackhide__ = True  # pytest shows the test's line, not these frames
        loaded, name = self.rubric(rubric)
        threshold = min_score if min_score is not None else loaded.pass_threshold
        if threshold is None:
            raise ConfigError(
                f"assert_rubric needs min_score=, or a rubric with a pass_threshold "
                f"(rubric {name} has none)"
            )
        if not (isinstance(threshold, int | float) and math.isfinite(threshold)):
            raise ConfigError(f"min_score {threshold!r} is not a number")
        report = self._grade(loaded, output, query, reference)
        # the scoring layer's rule: a judge failure on a weighted criterion leaves no score
        failed = judge_failures(report.report or [])
        if failed or report.error is not None:
            n = sum(1 for _ in leaf_reports(report.report or []))
            what = f"on {len(failed)} of {n} criteria" if failed else "to grade"
            first = f" (first: {failed[0].criterion.key}: {failed[0].error})" if failed else ""
            headline = f"the judge failed {what}; the rubric assertion decided nothing{first}"
        elif report.score is None:
            headline = "no score: nothing could be graded (every criterion was N/A)"
        elif report.score < threshold:
            headline = f"score {report.score:.3f} is below min_score {threshold:g}"
        else:
            return report
        message = failure_message(headline, report, output, rubric_name=name, judge=self.name)
        raise RubricAssertionError(message, report)


_SHARED: dict[str, RubricJudgeSession] = {}


def shared_session(judge: Any = None) -> RubricJudgeSession:
    """The session of this process for ``judge`` (a spec: one per spec; default: configured).

    A session passed in is returned as it is; a judge object or grader gets a new
    session (not cached across calls).
    """
    if isinstance(judge, RubricJudgeSession):
        return judge
    spec = configured_judge() if judge is None else judge
    if not isinstance(spec, str):
        return RubricJudgeSession(spec)
    session = _SHARED.get(spec)
    if session is None:
        session = _SHARED[spec] = RubricJudgeSession(spec)
    return session


def assert_rubric(
    output: Any,
    rubric: Rubric | str | Path,
    *,
    judge: Any = None,
    min_score: float | None = None,
    query: str | None = None,
    reference: str | None = None,
) -> EvaluationReport:
    """Grade ``output`` against ``rubric`` and raise unless it scores at least ``min_score``.

    Args:
        output: the text to grade (or ``{"thinking": ..., "output": ...}``).
        rubric: a :class:`~rubricjudge.Rubric` or the path of a rubric file (any format).
        judge: a spec, a Judge, a callable, a grader, or the ``rubric_judge``
            fixture; default: the judge the pytest plugin was given, else ``local``.
        min_score: the lowest passing score in [0, 1]; default: the rubric's
            ``pass_threshold``.
        query: the question the output answers, when the rubric needs it.
        reference: a reference answer, when the rubric needs one.

    Returns:
        The :class:`~rubricjudge.EvaluationReport`.

    Raises:
        RubricAssertionError: the output fell short or could not be judged (an
            ``AssertionError``; the message shows every criterion's verdict and reason).
    """
    __tracebackhide__ = True  # pytest shows the test's line, not these frames
    return shared_session(judge).assert_rubric(
        output, rubric, min_score=min_score, query=query, reference=reference
    )
