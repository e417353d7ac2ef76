"""Rubric assertions in pytest (the plugin ships with rubricjudge; nothing to install).

- :func:`assert_rubric`: grade an output against a rubric and fail the test, with
  every criterion's verdict and reason, unless it scores at least ``min_score``.
- the ``rubric_judge`` fixture: the session's :class:`RubricJudgeSession`, whose
  grader (the judge) and grades are cached for the whole test run.
- ``pytest --rubric-judge SPEC`` (or ``rubric_judge = SPEC`` in the pytest ini
  options) picks the judge: ``local`` by default, ``fake`` for offline tests.

The plugin module pytest loads at start-up (``rubricjudge_pytest``) imports none of
rubricjudge until a test uses the fixture; ``-p no:rubricjudge`` turns it off.
"""

from .._errors import RubricAssertionError
from .._testing._session import RubricJudgeSession, assert_rubric, shared_session

__all__ = ["RubricAssertionError", "RubricJudgeSession", "assert_rubric", "shared_session"]
