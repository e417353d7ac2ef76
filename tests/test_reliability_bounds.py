"""Regressions from the reliability probe (issue 11): what a hostile rubric or judge may hold.

A decode template may render for ``RENDER_TIMEOUT_S`` and ``RENDER_MAX_CHARS``; a
scoring-server request may grade for ``timeout_s``; ``/health`` names no path.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from rubricjudge import Criterion
from rubricjudge._cli.main import main
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._judges._base import JudgeRequest, JudgeResponse
from rubricjudge._judges._fake import FakeJudge
from rubricjudge._methods._decode import render_template, run_decode
from rubricjudge._methods._template import RENDER_MAX_CHARS, TemplateLimitError
from rubricjudge._server._app import create_app
from rubricjudge._server._settings import ServerSettings
from rubricjudge._server._sources import DirectorySource

TOKEN = "bounds-token-0123456789abcdef"


@pytest.mark.parametrize(
    ("template", "said"),
    [
        ('{{ "x" * 1000 * 1000 * 1000 }}', "a repetition with *"),
        ("{{ [content * 300000] * 300000 }}", "a repetition with *"),
        ('{{ "{:>999999999}".format(1) }}', "field width"),
        ('{{ "%999999999d" % 1 }}', "field width"),
        ('{{ "%999999999d" | format(1) }}', "field width"),
        ("{{ content.zfill(10 ** 9) }}", "the number 1000000000"),
        ("{{ content | center(10 ** 9) }}", "the number 1000000000"),
        ('{{ (content * 1000) | replace("", content * 1000) }}', "replace would be"),
        ("{{ content | indent(10 ** 6) }}", "indent would be"),
        ("{{ (range(30000) | batch(1) | list) | sum(start=[]) }}", "sum: adding up lists"),
        (
            '{% set ns = namespace(s="ab") %}{% for i in range(40) %}'
            "{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s | length }}",
            "namespace value 's'",
        ),
        (
            "{% macro d(s, n) %}{% if n > 0 %}{{ d(s ~ s, n - 1) }}{% else %}{{ s | length }}"
            '{% endif %}{% endmacro %}{{ d("ab", 40) }}',
            "an argument of macro 'd'",
        ),
        ("{% for i in range(100000) %}{{ content }}{% endfor %}", "the rendered prompt"),
    ],
)
def test_a_decode_template_cannot_build_a_huge_value(template: str, said: str) -> None:
    with pytest.raises(TemplateLimitError, match=said.replace("*", r"\*")):
        render_template(template, "abcdefghijklmnopqrstuvwxyz")


def test_ordinary_templates_render_as_before() -> None:
    template = (
        '{{ content | upper }} {{ content | replace("a", "b") }} {{ content[:2] }} '
        '{{ "%5s" | format(content) }} {{ ["a", "b"] | join(", ") }} {{ [1, 2, 3] | sum }} '
        "{% for c in content %}{{ loop.index }}{% endfor %} {{ title }}"
    )
    out = render_template(template, '{"title": "T"}')
    assert out.startswith('{"TITLE": "T"} {"title": "T"} {"')
    assert " a, b 6 " in out and out.endswith(" T")
    assert len(render_template("{{ content * 10 }}", "x" * (RENDER_MAX_CHARS // 10))) == (
        RENDER_MAX_CHARS
    )
    with pytest.raises(Exception, match="lipsum"):
        render_template("{{ lipsum(100000) }}", "x")  # gone: it only makes filler text


async def test_a_template_that_loops_is_stopped_and_recorded() -> None:
    loop_forever = (
        "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
    )
    c = Criterion.model_validate(
        {
            "name": "d",
            "requirement": "x",
            "weight": 1,
            "options": [{"label": "pass", "value": 1.0}, {"label": "fail", "value": 0.0}],
            "scoring_method": {"type": "llm_decode", "decode_prompt": loop_forever},
        }
    )
    judge = FakeJudge(default={"level_id": "pass", "reason": "r"})
    ticks = 0

    async def heartbeat() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.05)
            ticks += 1

    beat = asyncio.create_task(heartbeat())
    report = await run_decode(c, "text", judge)
    beat.cancel()
    assert report.error_category == "template" and "longer than 2 s" in (report.error or "")
    assert judge.requests == []  # nothing was asked on a prompt that never finished
    assert ticks > 5  # the event loop kept running while the template did


class HangingJudge:
    """Never answers; records whether its call was cancelled."""

    name = "hang"

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.cancelled = threading.Event()

    async def judge(self, request: JudgeRequest) -> JudgeResponse:
        self.entered.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        raise AssertionError("unreachable")


@pytest.fixture
def rubrics(tmp_path: Path) -> Path:
    d = tmp_path / "private-rubrics-dir"
    d.mkdir()
    (d / "r.yaml").write_text("- name: a\n  weight: 1\n  requirement: States A\n")
    return d


def _served(rubrics: Path, judge: Any, **kw: Any) -> Any:
    from tests.support.served import Served

    settings = ServerSettings(
        source=DirectorySource(rubrics), grader=CriterionGrader(judge=judge), token=TOKEN, **kw
    )
    return Served(create_app(settings))


def test_a_hanging_judge_cannot_hold_a_request_past_the_deadline(rubrics: Path) -> None:
    judge = HangingJudge()
    headers = {"Authorization": f"Bearer {TOKEN}"}
    with _served(rubrics, judge, timeout_s=0.5) as s, httpx.Client(headers=headers) as c:
        r = c.post(s.url + "/score", json={"rubric": "r", "submission": "A"}, timeout=60)
        assert r.status_code == 504, r.text
        assert "within 0.5 s" in r.json()["error"] and "--timeout" in r.json()["error"]
        items = {"rubric": "r", "items": [{"submission": "A"}, {"submission": "B"}]}
        assert c.post(s.url + "/score/batch", json=items, timeout=60).status_code == 504
        assert judge.cancelled.wait(10)  # the judge call was cancelled, not left running
        assert c.get(s.url + "/health").status_code == 200


def test_health_shows_the_kind_of_source_and_no_path(rubrics: Path) -> None:
    with _served(rubrics, FakeJudge()) as s, httpx.Client() as c:
        r = c.get(s.url + "/health")
    assert r.json() == {"status": "ok", "source": "directory"}
    assert "private-rubrics-dir" not in r.text


@pytest.mark.parametrize("flag", ["--timeout", "--max-batch", "--concurrency"])
def test_serve_flags_must_be_positive(
    rubrics: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    args = ["serve", "--rubrics-dir", str(rubrics), "--no-auth", flag, "0"]
    assert main(args) == 1
    assert f"{flag} 0" in capsys.readouterr().err
