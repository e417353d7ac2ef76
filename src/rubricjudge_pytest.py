"""The pytest plugin of rubricjudge: the ``--rubric-judge`` option and the ``rubric_judge`` fixture.

pytest loads this module at start-up (entry point ``pytest11``, name ``rubricjudge``)
in every project where rubricjudge is installed, so it imports nothing of
rubricjudge until a test asks for the fixture. ``-p no:rubricjudge`` turns it off.
``assert_rubric`` and the session type live in ``rubricjudge.integrations.pytest``.
"""

from __future__ import annotations

from typing import Any

import pytest

# the judge spec this test run was given; rubricjudge._testing reads it from here
judge_spec: str | None = None


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--rubric-judge SPEC`` and the ``rubric_judge`` ini value."""
    group = parser.getgroup("rubricjudge", "rubric assertions (rubricjudge)")
    group.addoption(
        "--rubric-judge",
        metavar="SPEC",
        default=None,
        help="judge of assert_rubric and the rubric_judge fixture: local (default), "
        "openai/MODEL, anthropic/MODEL, litellm/MODEL, or fake (offline, verdicts mean nothing)",
    )
    parser.addini(
        "rubric_judge", "judge spec of rubric assertions when --rubric-judge is not given"
    )


def pytest_configure(config: pytest.Config) -> None:
    """Remember the judge the run was given."""
    global judge_spec
    given = str(config.getoption("rubric_judge") or config.getini("rubric_judge") or "")
    judge_spec = given.strip() or None


def pytest_unconfigure(config: pytest.Config) -> None:
    """Forget it (pytest may run again in the same process)."""
    global judge_spec
    judge_spec = None


def pytest_report_header(config: pytest.Config) -> str | None:
    """Name the judge in the session header when one was given."""
    return f"rubricjudge: judge {judge_spec}" if judge_spec else None


@pytest.fixture(scope="session")
def rubric_judge() -> Any:
    """The session's rubric judge: ``rubric_judge.assert_rubric(output, rubric, min_score=0.8)``.

    One grader and one cache of grades for the whole test run.
    """
    from rubricjudge.integrations.pytest import shared_session

    return shared_session()
