"""The pytest plugin, run as pytest runs it: a subprocess `pytest` on sample test files.

The plugin is the installed ``pytest11`` entry point (nothing here loads it by
hand). The sample tests use the scripted ``fake`` judge, which answers every
binary criterion the way that earns credit and picks the first option of a
multi-choice one; one small test runs the real local model.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

RUBRICS = textwrap.dedent(
    """
    from rubricjudge import Criterion, CriterionOption, Rubric

    # every answer of the fake judge earns credit here: score 1
    GOOD = Rubric(
        [Criterion(name="mentions", weight=1, requirement="Mentions Paris")], name="good"
    )
    # the fake judge picks the first option, 'rude': score 1 / 4
    TONE = Rubric(
        [
            Criterion(name="mentions", weight=1, requirement="Mentions Paris"),
            Criterion(
                name="tone",
                weight=3,
                requirement="How polite is it?",
                options=[
                    CriterionOption(label="rude", value=0.0),
                    CriterionOption(label="polite", value=1.0),
                ],
            ),
        ],
        name="tone",
    )
    """
)

SAMPLE = textwrap.dedent(
    """
    from rubricjudge import FakeJudge, JudgeError
    from rubricjudge.integrations.pytest import assert_rubric
    from rubrics import GOOD, TONE

    ANSWER = "Paris is the capital of France."

    def test_fixture_passes(rubric_judge):
        report = rubric_judge.assert_rubric(ANSWER, GOOD, min_score=0.9)
        assert report.score == 1.0 and rubric_judge.name == "fake"

    def test_helper_passes_with_the_configured_judge():
        assert assert_rubric(ANSWER, GOOD, min_score=1.0).score == 1.0

    def test_the_session_reuses_grades(rubric_judge):
        before = rubric_judge.graded
        rubric_judge.assert_rubric(ANSWER, GOOD, min_score=0.5)
        assert rubric_judge.graded == before and rubric_judge.reused >= 1

    def test_low_score_fails():
        assert_rubric("Paris is in \\x1b[31mGermany.", TONE, min_score=0.5)

    def test_judge_failure_fails():
        def reply(request):
            if request.tags["key"] == "tone":
                return JudgeError("the server said 503", category="server")
            return {"reason": "it names Paris", "verdict": "MET"}

        assert_rubric(ANSWER, TONE, judge=FakeJudge(default=reply), min_score=0.1)

    def test_rubric_file_and_its_threshold(rubric_judge, tmp_path):
        path = tmp_path / "r.yaml"
        GOOD.model_copy(update={"pass_threshold": 0.9}).to_file(path)
        assert rubric_judge.assert_rubric(ANSWER, str(path)).score == 1.0
    """
)


def _pytest(
    work: Path, *args: str, env_extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RUBRICJUDGE_CACHE_DIR": str(work / "judge-cache"), **(env_extra or {})}
    env.pop("PYTEST_ADDOPTS", None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:asyncio", *args],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _section(out: str, test: str) -> str:
    """The failure report of ``test``: from its ``____ test ____`` header to the next one."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("_") and f" {test} " in line)
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].startswith(("___", "==="))),
        len(lines),
    )
    return "\n".join(lines[start:end])


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")  # this directory is the rootdir
    (tmp_path / "rubrics.py").write_text(RUBRICS)
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    return tmp_path


def test_sample_tests_pass_and_fail_with_verdicts_and_reasons(work: Path) -> None:
    done = _pytest(work, "-W", "error", "--rubric-judge", "fake", "-rA", "test_sample.py")
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "2 failed, 4 passed" in out, out
    assert "rubricjudge: judge fake" in out  # the session header names the judge
    low = _section(out, "test_low_score_fails")
    assert "score 0.250 is below min_score 0.5 (rubric 'tone', judge fake)" in low
    assert "+ MET       mentions (weight 1): Mentions Paris" in low
    assert "- rude (0)  tone (weight 3): How polite is it?" in low
    assert "reason: fake" in low
    assert "Paris is in \\x1b[31mGermany." in low  # escaped: no colour codes in the log
    assert "\x1b[31m" not in out
    failed = _section(out, "test_judge_failure_fails")
    assert "the judge failed on 1 of 2 criteria; the rubric assertion decided nothing" in failed
    assert "! ERROR" in failed and "judge failed: server: the server said 503" in failed
    assert "reason: it names Paris" in failed
    assert "_session.py" not in out  # the helper's own frames are hidden


def test_the_ini_value_picks_the_judge_and_the_flag_wins(work: Path) -> None:
    (work / "pytest.ini").write_text("[pytest]\nrubric_judge = fake\n")
    done = _pytest(work, "-k", "fixture_passes", "test_sample.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rubricjudge: judge fake" in done.stdout
    done = _pytest(work, "--rubric-judge", "nosuch/judge", "-k", "fixture_passes", "test_sample.py")
    assert done.returncode == 1
    assert "unknown judge 'nosuch/judge'" in done.stdout


def test_no_min_score_and_no_threshold_is_an_error_that_says_so(work: Path) -> None:
    (work / "test_usage.py").write_text(
        "from rubrics import GOOD\n"
        "def test_it(rubric_judge):\n"
        "    rubric_judge.assert_rubric('x', GOOD)\n"
    )
    done = _pytest(work, "--rubric-judge", "fake", "test_usage.py")
    assert done.returncode == 1
    assert "assert_rubric needs min_score=, or a rubric with a pass_threshold" in done.stdout


def test_loading_the_plugin_imports_nothing_of_rubricjudge(work: Path) -> None:
    (work / "test_plain.py").write_text(
        "import sys\n"
        "def test_plain():\n"
        "    assert 'rubricjudge_pytest' in sys.modules\n"
        "    assert not [m for m in sys.modules if m.startswith('rubricjudge.')]\n"
        "    assert 'rubricjudge' not in sys.modules\n"
    )
    done = _pytest(work, "--rubric-judge", "fake", "test_plain.py")
    assert done.returncode == 0, done.stdout + done.stderr
    done = _pytest(work, "-p", "no:rubricjudge", "--rubric-judge", "fake", "test_plain.py")
    assert done.returncode == 4 and "unrecognized arguments: --rubric-judge" in done.stderr


def test_the_session_caches_rubric_files_until_they_change(tmp_path: Path) -> None:
    from rubricjudge import Criterion, Rubric
    from rubricjudge.integrations.pytest import RubricAssertionError, RubricJudgeSession

    session = RubricJudgeSession("fake")
    path = tmp_path / "r.yaml"
    Rubric([Criterion(name="a", weight=1, requirement="Says hi")]).to_file(path)
    session.assert_rubric("hi", path, min_score=1.0)
    session.assert_rubric("hi", path, min_score=1.0)
    assert (session.graded, session.reused) == (1, 1)
    Rubric([Criterion(name="b", weight=-1, requirement="Is rude")], pass_threshold=0.5).to_file(
        path
    )
    os.utime(path, ns=(0, 0))  # a different mtime even on coarse file systems
    report = session.assert_rubric("hi", path)  # the new rubric, and its threshold
    assert session.graded == 2 and report.report and report.report[0].criterion.key == "b"
    with pytest.raises(RubricAssertionError, match="is below min_score 1.01") as info:
        session.assert_rubric("hi", path, min_score=1.01)
    assert isinstance(info.value, AssertionError) and info.value.report is report


@pytest.mark.local_model
def test_the_local_judge_passes_a_good_answer_and_fails_the_ocean_myth(work: Path) -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed")
    from rubricjudge._judges._model_files import models_dir

    real_models = models_dir()  # the assembled model, shared; responses go to the scratch cache
    (work / "judge-cache").mkdir()
    (work / "judge-cache" / "models").symlink_to(real_models, target_is_directory=True)
    rubric = Path(__file__).resolve().parents[2] / "examples" / "native" / "why_sky_blue.yaml"
    (work / "test_sky.py").write_text(
        textwrap.dedent(
            f"""
            from rubricjudge.integrations.pytest import assert_rubric

            RUBRIC = {str(rubric)!r}

            def test_good():
                assert_rubric("Air molecules scatter sunlight, and they scatter blue light "
                              "(short wavelengths) much more than red, so the sky looks blue.",
                              RUBRIC)

            def test_myth():
                assert_rubric("The sky is blue because it reflects the colour of the ocean.",
                              RUBRIC)
            """
        )
    )
    done = _pytest(work, "--rubric-judge", "local", "-rA", "test_sky.py")
    out = done.stdout
    assert "1 failed, 1 passed" in out, out + done.stderr
    myth = _section(out, "test_myth")
    assert "is below min_score 0.6 (rubric " in myth and "judge local" in myth
    # verdict-only with the probability it gave; a reason for what cost points
    assert "reason: " in myth
    assert re.search(
        r"[-+] (MET|UNMET) +ocean_myth \(weight -8, confidence [01]\.\d\d\): The answer claims",
        myth,
    )


async def test_assertions_work_inside_a_running_event_loop() -> None:
    from rubricjudge import Criterion, Rubric
    from rubricjudge.integrations.pytest import RubricJudgeSession

    rubric = Rubric([Criterion(name="a", weight=1, requirement="Says hi")])
    report = RubricJudgeSession("fake").assert_rubric("hi", rubric, min_score=1.0)
    assert report.score == 1.0
