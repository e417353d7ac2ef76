"""Regressions from the reliability probe (issue 11): each case that once crashed or hung."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rubricjudge import (
    ConfigError,
    Criterion,
    CriterionOption,
    CriterionVerdict,
    DatasetError,
    RubricDataset,
    RubricJudgeError,
    load_rubrics,
)
from rubricjudge._cli.main import main
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._judges._fake import FakeJudge
from rubricjudge._judges._parse import parse_json_reply
from rubricjudge._limits import MAX_DEPTH, DataLimitError, json_loads, yaml_load
from rubricjudge._methods._functions import FunctionRegistry
from rubricjudge._methods._run import run_method


def bomb(levels: int = 8) -> str:
    text = "a: &a [x, x, x, x, x, x, x, x, x]\n"
    prev = "a"
    for name in "bcdefghijk"[:levels]:
        text += f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]\n"
        prev = name
    return text


async def test_a_superscript_option_number_is_a_parse_error_not_a_crash() -> None:
    opts = [CriterionOption(label=x) for x in ("low", "mid", "high")]
    rubric = [Criterion(name="q", weight=1, requirement="How good?", options=opts)]
    for bad in ("²", "٣", "1e3", "9999999"):
        judge = FakeJudge(default={"reason": "x", "option": bad})
        report = await CriterionGrader(judge).grade(rubric, "text")
        cr = (report.report or [])[0]
        assert cr.error_category == "parse" and cr.selection is None, bad
        assert report.score is None


def test_json_repair_is_linear_in_the_reply() -> None:
    # 16,000 unclosed braces once took ~16 s; a few ms is the budget in spirit (not timed)
    with pytest.raises(ValueError, match="not a JSON object"):
        parse_json_reply("{" * 16_000)
    assert parse_json_reply("{{{ " + '{"k": "}"}') == {"k": "}"}
    assert parse_json_reply('noise {"a": [1, {"b": 2}]} {"c": 3}') == {"a": [1, {"b": 2}]}
    with pytest.raises(ValueError, match="more than 1,000,000"):
        parse_json_reply(" " * 1_000_001)


def test_yaml_alias_bombs_are_refused_before_they_expand(tmp_path: Path) -> None:
    with pytest.raises(DataLimitError, match="aliases expand to more than 100,000"):
        yaml_load(bomb())
    assert yaml_load("b: &b {x: 1}\nc: [*b, *b]") == {"b": {"x": 1}, "c": [{"x": 1}, {"x": 1}]}
    rubric = tmp_path / "bomb.yaml"
    rubric.write_text(
        "criteria:\n- requirement: x\n  weight: 1\n  metadata:\n" + textwrap.indent(bomb(), "    ")
    )
    with pytest.raises(RubricJudgeError, match="aliases expand"):
        load_rubrics(rubric)
    data = tmp_path / "ds.yaml"
    data.write_text(
        "prompt: q\nrubric: [{requirement: x, weight: 1}]\nmetadata:\n"
        + textwrap.indent(bomb(), "  ")
    )
    with pytest.raises(DatasetError, match=r"ds.yaml: YAML aliases expand"):
        RubricDataset.from_file(data)


def test_deep_nesting_and_huge_integers_are_clean_errors(tmp_path: Path) -> None:
    with pytest.raises(DataLimitError, match=f"more than {MAX_DEPTH} levels"):
        json_loads("[" * 100_000 + "]" * 100_000)
    with pytest.raises(DataLimitError, match=f"more than {MAX_DEPTH} levels"):
        yaml_load("[" * 5000 + "]" * 5000)
    with pytest.raises(DataLimitError, match="4300 digits"):
        json_loads('{"weight": ' + "9" * 5000 + "}")
    deep = tmp_path / "deep.json"
    deep.write_text(json.dumps([{"requirement": "x", "weight": 1, "metadata": nested(300)}]))
    with pytest.raises(RubricJudgeError, match="nested more than 64 levels"):
        load_rubrics(deep)


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"k": value}
    return value


def test_the_cli_reports_bombs_and_huge_verdict_files_without_tracebacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric = tmp_path / "bomb.yaml"
    rubric.write_text(bomb())
    assert main(["validate", str(rubric)]) == 1
    said = capsys.readouterr()
    assert "aliases expand" in said.out + said.err and "Traceback" not in said.err
    good = tmp_path / "r.yaml"
    good.write_text("- name: a\n  weight: 1\n  requirement: x\n")
    verdicts = tmp_path / "v.json"
    verdicts.write_text("[" + "9" * 5000 + "]")
    assert main(["score", str(good), "--verdicts", str(verdicts)]) == 1
    err = capsys.readouterr().err
    assert "v.json" in err and "4300 digits" in err and "Traceback" not in err


@pytest.fixture
def app_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    pkg = tmp_path / "probeapp"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        "import os\nfrom os import system\n\n"
        "def score(target):\n    return 'pass'\n\n"
        "def _private(target):\n    return 'pass'\n\n"
        "class Scorer:\n    def __call__(self, target):\n        return 'pass'\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "probeapp"
    sys.modules.pop("probeapp", None)


@pytest.mark.parametrize(
    "ref",
    [
        "probeapp:os.system",  # an attribute path through an imported module
        "probeapp:system",  # a re-exported built-in
        "probeapp:__import__",
        "probeapp:_private",
        "probeapp:Scorer",  # a class, not a function
        "probeapp:score()",
    ],
)
def test_allowed_imports_name_only_public_functions_defined_in_the_module(
    app_module: str, ref: str
) -> None:
    reg = FunctionRegistry(allow_imports=[app_module])
    with pytest.raises(ConfigError, match=ref.replace("(", r"\(").replace(")", r"\)")):
        reg.resolve(ref)
    assert reg.resolve("probeapp:score")("x") == "pass"


async def test_an_imported_function_still_runs_when_allowed(app_module: str) -> None:
    levels = [
        {"id": "pass", "label": "Pass", "score": 1.0},
        {"id": "fail", "label": "Fail", "score": 0.0},
    ]
    c = Criterion.model_validate(
        {
            "name": "c",
            "requirement": "x",
            "weight": 1,
            "options": [{"label": "pass", "value": 1.0}, {"label": "fail", "value": 0.0}],
            "scoring_method": {"type": "function", "function_ref": "probeapp:score"},
        }
    )
    del levels
    report = await run_method(c, "target", functions=FunctionRegistry(allow_imports=["probeapp"]))
    assert report.error is None and report.selection is not None


def test_a_status_digit_in_content_length_is_refused() -> None:
    import re

    assert not re.fullmatch(r"[0-9]{1,18}", "²00")


@settings(max_examples=150, deadline=None)
@given(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False)
        | st.text(max_size=20),
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(st.text(max_size=10), children, max_size=4)
        ),
        max_leaves=30,
    )
)
def test_any_json_value_is_a_rubric_or_a_clean_error(value: Any) -> None:
    from rubricjudge._formats._load import load_data as load

    for data in (
        value,
        {"criteria": value},
        [value],
        {"format": "rubricjudge/1", "criteria": value},
    ):
        try:
            load(json.loads(json.dumps(data)))
        except RubricJudgeError:
            pass
        except (TypeError, ValueError) as e:  # only a RubricJudgeError may escape
            if not isinstance(e, RubricJudgeError):
                raise AssertionError(f"{type(e).__name__} for {data!r}: {e}") from e


@settings(max_examples=150, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=12),
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(
                st.sampled_from(
                    ["prompt", "rubric", "items", "submission", "ground_truth", "id", "x"]
                ),
                children,
                max_size=5,
            )
        ),
        max_leaves=30,
    )
)
def test_any_dataset_document_is_a_dataset_or_a_clean_error(value: Any) -> None:
    for data in (
        value,
        {"prompt": "q", "rubric": [{"requirement": "x", "weight": 1}], "items": value},
    ):
        try:
            RubricDataset.from_dict(data, source="fuzz")
        except RubricJudgeError:
            pass


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (
            "id: r\nname: r\nversion: 1.0.0\ndescription: d\ntarget_type: t\npass_threshold: 0.5\n"
            "criteria:\n- id: c\n  name: c\n  description: d\n  weight: 1\n"
            "  scoring_method: {type: [llm]}\n  levels:\n"
            "  - {id: good, label: Good, score: 1.0}\n  - {id: bad, label: Bad, score: 0.0}\n",
            "criteria[0].scoring_method.type",
        ),
        (
            "name: x\nversion: 1.0.0\ndomain: code\nscale: {min: 0, max: 10}\ncriteria:\n"
            "- {name: a, description: d, weight: 1.0, subcriteria: 1.5}\n",
            "criteria[0].subcriteria",
        ),
        (
            "name: x\nversion: 1.0.0\ndomain: code\nscale: {min: 0, max: 10}\ncriteria:\n"
            "- name: a\n  description: d\n  weight: 1.0\n  subcriteria:\n"
            "  - {name: {x: 1}, description: y}\n",
            "criteria[0].subcriteria[0].name",
        ),
    ],
)
def test_malformed_peer_formats_are_clean_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, where: str
) -> None:
    path = tmp_path / "r.yaml"
    path.write_text(text)
    for args in (["validate", str(path)], ["convert", str(path), "--to", "native"]):
        assert main(args) == 1
        said = capsys.readouterr()
        assert where in said.out + said.err and "Traceback" not in said.err


def test_a_bare_model_name_hints_at_its_backend(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric = tmp_path / "r.yaml"
    rubric.write_text("- name: a\n  weight: 1\n  requirement: x\n")
    assert main(["grade", str(rubric), "--text", "hi", "--judge", "gpt-4o-mini"]) == 1
    assert "e.g. 'openai/gpt-4o-mini'" in capsys.readouterr().err


def test_registry_add_takes_the_name_as_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = Path(__file__).parent.parent
    db = f"sqlite:///{tmp_path / 'reg.sqlite3'}"
    example = root / "examples" / "native" / "why_sky_blue.yaml"
    assert main(["registry", "add", str(example), "--db", db]) == 0
    said = capsys.readouterr()
    assert "using 'why_sky_blue' (its name)" in said.err
    assert "registered why_sky_blue 1.0.0" in said.out


def test_migrating_a_v2_file_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = Path(__file__).parent.parent
    src = tmp_path / "r.json"
    src.write_text((root / "examples" / "openrubricrl" / "code_quality_basic.json").read_text())
    assert main(["migrate", str(src)]) == 0
    first = list(tmp_path.iterdir())
    migrated = tmp_path / "r.v2.json"
    if migrated.exists():  # the example was v1: migrating the result changes nothing more
        capsys.readouterr()
        assert main(["migrate", str(migrated), "-o", str(tmp_path / "again.json")]) == 0
        assert not (tmp_path / "again.json").exists()
        assert "no changes, nothing written" in capsys.readouterr().err
    else:
        assert first == [src] and "no changes, nothing written" in capsys.readouterr().err


def test_a_closed_stdout_ends_quietly(monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import os

    read_end, write_end = os.pipe()
    os.close(read_end)  # like `| head` having exited
    pipe = io.TextIOWrapper(io.FileIO(write_end, "w"), encoding="utf-8", write_through=True)
    monkeypatch.setattr(sys, "stdout", pipe)
    try:
        assert main(["schema"]) == 141
    finally:
        monkeypatch.undo()
        try:
            pipe.close()
        except OSError:
            pass


def _verdict_rubric() -> list[Criterion]:
    return [Criterion(name="c", weight=1, requirement="States A")]


def test_a_rejected_reply_is_neither_cached_nor_replayed(chat_server: Any, tmp_path: Path) -> None:
    from rubricjudge._judges._registry import get_judge
    from tests.support.chat_server import Reply

    chat_server.script(Reply.json({"answer": "maybe"}))
    chat_server.handler = lambda body: Reply.json({"answer": "yes"})
    cache = str(tmp_path / "cache.sqlite3")

    def grade(**options: Any) -> Any:
        judge = get_judge("openai/t", base_url=chat_server.base_url, cache=cache, **options)
        report = CriterionGrader(judge, verdict_method="verdict-only").grade_sync(
            _verdict_rubric(), "A"
        )
        return (report.report or [])[0]

    assert grade().error_category == "parse"  # 'maybe' is no answer: recorded, not cached
    assert grade().verdict is CriterionVerdict.MET  # asked again, not replayed
    assert len(chat_server.chat_requests) == 2
    assert grade().verdict is CriterionVerdict.MET
    assert len(chat_server.chat_requests) == 2  # the good answer came from the cache
    grade(refresh_cache=True)
    assert len(chat_server.chat_requests) == 3  # --refresh-cache asks again


async def test_a_resumed_run_asks_again_what_did_not_answer(tmp_path: Path) -> None:
    from rubricjudge._runs._evaluate import evaluate

    calls: list[str] = []

    def answer(req: Any) -> Any:
        calls.append(req.user)
        return {"answer": "perhaps"} if len(calls) == 1 else {"answer": "yes"}

    ds = RubricDataset(prompt="q", rubric=_verdict_rubric())
    ds.add_item(submission="A", id="i")
    grader = CriterionGrader(FakeJudge(default=answer), verdict_method="verdict-only")
    first = await evaluate(ds, grader, run_dir=tmp_path / "run")
    cr = ((first.reports[0] or None) and first.reports[0].report or [])[0]
    assert cr.error_category == "parse"  # fake judges are not retried by the judge layer
    second = await evaluate(ds, grader, run_dir=tmp_path / "run", resume=True, force=True)
    report = second.reports[0]
    assert report is not None and (report.report or [])[0].verdict is CriterionVerdict.MET
    assert len(calls) == 2  # the bad answer was not replayed


async def test_a_run_asks_each_judge_in_its_own_preferred_layout(tmp_path: Path) -> None:
    from rubricjudge._runs._evaluate import evaluate

    class Prefers(FakeJudge):
        preferred_verdict_method = "verdict-only"

    judge = Prefers(default={"answer": "yes"})
    ds = RubricDataset(prompt="q", rubric=_verdict_rubric())
    ds.add_item(submission="A", id="i")
    await evaluate(ds, CriterionGrader(judge), run_dir=tmp_path / "run")
    assert list(judge.requests[0].schema["properties"]) == ["answer"]


def test_a_run_directory_is_locked_against_a_second_process(tmp_path: Path) -> None:
    import subprocess

    from rubricjudge._runs._lock import RunLock

    run = tmp_path / "run"
    with RunLock(run):
        code = (
            "import sys\nfrom rubricjudge._runs._lock import RunLock\n"
            "from rubricjudge import UsageError\n"
            "try:\n    RunLock(sys.argv[1]).__enter__()\n"
            "except UsageError as e:\n    print(e); raise SystemExit(3)\n"
        )
        out = subprocess.run(
            [sys.executable, "-c", code, str(run)], capture_output=True, text=True, timeout=60
        )
        assert out.returncode == 3
        assert "is in use by another rubricjudge process (pid" in out.stdout
        assert str(__import__("os").getpid()) in out.stdout
    with RunLock(run):  # released on exit: taken again at once
        pass


async def test_evaluate_refuses_a_run_directory_in_use(tmp_path: Path) -> None:
    from rubricjudge import UsageError
    from rubricjudge._runs._evaluate import evaluate
    from rubricjudge._runs._lock import RunLock

    ds = RubricDataset(prompt="q", rubric=_verdict_rubric())
    ds.add_item(submission="A", id="i")
    with RunLock(tmp_path / "run"), pytest.raises(UsageError, match="in use by another"):
        await evaluate(ds, CriterionGrader(FakeJudge()), run_dir=tmp_path / "run")
    done = await evaluate(ds, CriterionGrader(FakeJudge()), run_dir=tmp_path / "run")
    assert done.summary.items_failed == 0


@pytest.mark.parametrize(
    "usage",
    [
        {"prompt_tokens": "many", "completion_tokens": 3},
        {"prompt_tokens": -5, "completion_tokens": 1, "total_tokens": 1},
        {"prompt_tokens": 1e300, "completion_tokens": 1},
        {"prompt_tokens": True, "completion_tokens": 1},
        "lots",
    ],
)
def test_bad_usage_is_unknown_usage_and_the_verdict_stands(chat_server: Any, usage: Any) -> None:
    from rubricjudge._judges._registry import get_judge
    from tests.support.chat_server import Reply

    chat_server.handler = lambda body: Reply.json({"answer": "yes"}, usage_json=usage)
    judge = get_judge("openai/u", base_url=chat_server.base_url, cache=False)
    report = CriterionGrader(judge, verdict_method="verdict-only").grade_sync(
        _verdict_rubric(), "A"
    )
    cr = (report.report or [])[0]
    assert cr.verdict is CriterionVerdict.MET and cr.error is None
    assert report.token_usage is None


def test_one_reply_cannot_charge_the_token_limit_without_bound() -> None:
    from rubricjudge._judges._provider_limits import ProviderLimits

    limits = ProviderLimits("bench").configure(None, None, 60_000)  # 1,000 tokens a second
    assert limits.tokens is not None and limits.tokens.try_take(100) == 0.0
    limits.settle(100, 10**15)  # a reply claims a quadrillion tokens
    assert limits.tokens.try_take(100) < 2.0  # the next call waits seconds, not eons


def test_a_failed_grade_keeps_the_old_output_and_exits_non_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    rubric = tmp_path / "r.yaml"
    rubric.write_text("- name: a\n  weight: 1\n  requirement: States A\n")
    prev = tmp_path / "prev.jsonl"
    prev.write_text('{"id": "old"}\n')
    args = ["grade", str(rubric), "--text", "A", "-o", str(prev)]
    assert main([*args, "--judge", "openai/gpt-4o-mini"]) == 1  # no key: a usage error
    assert prev.read_text() == '{"id": "old"}\n'
    assert list(tmp_path.glob(".prev.jsonl.*")) == []  # the temporary file is gone
    every_call_fails = FakeJudge(default=JudgeErrorFactory())
    from rubricjudge._judges import _registry

    monkeypatch.setitem(_registry._FACTORIES, "failing", lambda model, cfg: every_call_fails)
    capsys.readouterr()
    assert main([*args, "--judge", "failing"]) == 1
    err = capsys.readouterr().err
    assert "no item could be graded" in err and "prev.jsonl was left as it was" in err
    assert "server is down" in err  # why, on stderr
    assert prev.read_text() == '{"id": "old"}\n'  # as the help promises (issue 23, N1)
    assert main(["grade", str(rubric), "--text", "A", "--judge", "fake", "-o", str(prev)]) == 0


class JudgeErrorFactory:
    def __call__(self, request: Any) -> Any:
        from rubricjudge import JudgeError

        return JudgeError("server is down", category="server")
