"""A judge that fails is never a score: one rule for every consumer (issue 32).

The judge is ``openai/...`` against the scripted chat server. It answers only the
penalty of ``examples/native/why_sky_blue.yaml`` (UNMET: the answer does not blame
the ocean) and fails on every criterion that earns credit, the case where skipping
the failures as CANNOT_ASSESS left the penalty alone and scored 1.0. Each consumer
is checked: the grader's report, ``grade``, ``evaluate``, the rewards
(``RubricReward`` and ``serve``'s ``/get_reward``), ``gate`` and the pytest plugin.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rubricjudge import Criterion, CriterionOption, Rubric, RubricDataset
from rubricjudge._cli.main import main
from rubricjudge._errors import RewardError, RubricAssertionError
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._judges._fake import fake_reply_for_schema
from rubricjudge._model._reports import CriterionReport, OptionSelection
from rubricjudge._model._rubric import CriterionVerdict
from rubricjudge._model._scoring import ScoringPolicy, finalize, judge_failures
from rubricjudge._rewards._reward import RubricReward
from rubricjudge._server._app import create_app
from rubricjudge._server._settings import ServerSettings
from rubricjudge._server._sources import FileSource
from tests.support.chat_server import ChatServer, Reply, schema_of
from tests.support.served import TOKEN, Served

ROOT = Path(__file__).resolve().parent.parent
SKY = ROOT / "examples" / "native" / "why_sky_blue.yaml"
ANSWER = "The sky is blue because air scatters blue sunlight more than red light."
NO_WAIT = {"Retry-After": "0"}
FAILS = "the judge failed on 3 of 4 criteria that carry weight"

# which criterion a prompt asks about: a phrase of its requirement
PHRASES = {
    "scattering": "sunlight being scattered",
    "wavelength": "blue light is scattered more",
    "clarity": "How clear is the answer",
    "ocean_myth": "reflects the ocean",
}


OPTIONS = ["Confusing", "Understandable", "Clear"]  # clarity's, in order


def _criterion(body: Any) -> str:
    text = " ".join(str(m.get("content")) for m in body["messages"])
    found = [key for key, phrase in PHRASES.items() if phrase in text]
    assert len(found) == 1, text
    return found[0]


def _answer(body: Any, met: bool | str) -> Reply:
    """A reply valid for the request's schema: MET/UNMET, or the option labelled ``met``."""
    schema = schema_of(body) or {}
    data = fake_reply_for_schema(schema)
    for key, prop in (schema.get("properties") or {}).items():
        enum = prop.get("enum") or []
        if key == "option" and isinstance(met, str):  # options are asked by number
            data[key] = OPTIONS.index(met) + 1
        elif "MET" in enum:
            data[key] = "MET" if met is True else "UNMET"
        elif "yes" in enum:
            data[key] = "yes" if met is True else "no"
    return Reply.json(data)


def judging(answers: dict[str, bool | str]) -> Callable[[Any], Reply]:
    """A chat server handler: the criteria in ``answers`` answered so, the others fail."""

    def reply(body: Any) -> Reply:
        key = _criterion(body)
        if key not in answers:
            return Reply.server_error(headers=NO_WAIT)
        return _answer(body, answers[key])

    return reply


PENALTY_ONLY = judging({"ocean_myth": False})
EVERYTHING = judging(
    {"scattering": True, "wavelength": True, "clarity": "Clear", "ocean_myth": False}
)


@pytest.fixture
def judge_env(chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> ChatServer:
    """The chat server as ``openai/...``'s endpoint, for code that builds its own judge."""
    monkeypatch.setenv("OPENAI_BASE_URL", chat_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    return chat_server


def grader(server: ChatServer, **kw: Any) -> CriterionGrader:
    options = {"base_url": server.base_url, "api_key": "x", "max_retries": 0, "cache": False}
    return CriterionGrader(judge="openai/test", judge_options=options, **kw)


def answers_file(path: Path, n: int, prefix: str = "item") -> Path:
    lines = [json.dumps({"id": f"{prefix}-{i:02d}", "submission": ANSWER}) for i in range(n)]
    path.write_text("\n".join(lines) + "\n")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# -- the rule, in the scoring layer ------------------------------------------------------
def test_the_grader_gives_no_score_when_the_judge_fails_on_credit(chat_server: ChatServer) -> None:
    chat_server.handler = PENALTY_ONLY
    rubric = Rubric.from_file(SKY)
    report = grader(chat_server).grade_sync(rubric, ANSWER)
    assert report.score is None and report.passed is None  # was 1.0, passed
    assert report.error is not None and FAILS in report.error
    assert "'scattering'" in report.error and "server" in report.error
    assert report.error_count == 3 and report.partial is None
    assert report.to_jsonable()["score"] is None
    # a judge failure is not CANNOT_ASSESS, whatever the strategy for those
    for strategy in ("skip", "zero", "partial", "fail"):
        again = grader(chat_server, cannot_assess=strategy).grade_sync(rubric, ANSWER)
        assert again.score is None, strategy


def test_partial_is_a_floor_flagged_partial(chat_server: ChatServer) -> None:
    rubric = Rubric.from_file(SKY)
    chat_server.handler = PENALTY_ONLY
    floor = grader(chat_server, judge_failure="partial").grade_sync(rubric, ANSWER)
    # the credit-carrying criteria earn nothing undecided: 0, not 1.0
    assert floor.partial is True and floor.score == 0.0 and floor.passed is None
    # an undecided penalty is charged: (10 + 5 + 4 - 8) / 19, where skipping it gave 1.0
    chat_server.handler = judging({"scattering": True, "wavelength": True, "clarity": "Clear"})
    charged = grader(chat_server, judge_failure="partial").grade_sync(rubric, ANSWER)
    assert charged.partial is True and charged.score == pytest.approx(11 / 19)
    assert charged.passed is None  # 0.579 < 0.6: a floor below the threshold decides nothing
    chat_server.handler = judging({"scattering": True, "wavelength": True, "ocean_myth": False})
    passing = grader(chat_server, judge_failure="partial").grade_sync(rubric, ANSWER)
    assert passing.score == pytest.approx(15 / 19) and passing.passed is True
    assert grader(chat_server).grade_sync(rubric, ANSWER).score is None  # the default


def _failed(criterion: Criterion) -> CriterionReport:
    return CriterionReport(
        criterion=criterion, verdict=CriterionVerdict.CANNOT_ASSESS, error="server: down"
    )


def _met(criterion: Criterion, met: bool = True) -> CriterionReport:
    verdict = CriterionVerdict.MET if met else CriterionVerdict.UNMET
    return CriterionReport(criterion=criterion, verdict=verdict)


def test_which_failures_count_and_the_floor_under_parents() -> None:
    a = Criterion(name="a", weight=2, requirement="A")
    note = Criterion(name="note", weight=0, requirement="A note")
    # a failure on a criterion without weight cannot move the score
    rubric = Rubric([a, note])
    reports = [_met(a), _failed(note)]
    assert judge_failures(reports) == []
    assert finalize(rubric, reports).score == 1.0
    # a penalty parent: its children's worst is their best credit (the sign flips)
    child = Criterion(name="child", weight=1, requirement="C")
    other = Criterion(name="other", weight=1, requirement="D")
    parent = Criterion(name="harm", weight=-4, requirement="Harm", subcriteria=[child, other])
    tree = Rubric([a, parent])
    done = [
        _met(a),
        CriterionReport(criterion=parent, children=[_met(child, False), _failed(other)]),
    ]
    assert [r.criterion.name for r in judge_failures(done)] == ["other"]
    assert finalize(tree, done).score is None
    partial = finalize(tree, done, ScoringPolicy(judge_failure="partial"))
    # other at its worst is MET: the harm parent's credit 0.5 is charged: (2 - 4 * 0.5) / 2
    assert partial.partial is True and partial.score == 0.0
    # a multi-choice criterion at its worst takes its worst option
    tone = Criterion(
        name="tone",
        weight=2,
        requirement="Tone",
        options=[
            CriterionOption(label="good", value=1.0),
            CriterionOption(label="bad", value=0.25),
        ],
    )
    floor = finalize(
        Rubric([a, tone]), [_met(a), _failed(tone)], ScoringPolicy(judge_failure="partial")
    )
    assert floor.score == pytest.approx((2 + 2 * 0.25) / 4)
    with pytest.raises(ValueError, match="judge_failure 'maybe' is unknown"):
        ScoringPolicy(judge_failure="maybe")  # type: ignore[arg-type]


def test_fallback_verdicts_still_stand_in_and_dataknobs_keeps_its_rule() -> None:
    a = Criterion(name="a", weight=2, requirement="A")
    b = Criterion(name="b", weight=1, requirement="B")
    rubric = Rubric([a, b])
    # a fallback verdict the user configured decided the criterion: it scores
    fallback = CriterionReport(criterion=b, verdict=CriterionVerdict.UNMET, error="server: down")
    assert finalize(rubric, [_met(a), fallback]).score == pytest.approx(2 / 3)
    # dataknobs' executor scores a failure 0, opt-in, to match its results
    assert finalize(
        rubric, [_met(a), _failed(b)], ScoringPolicy.dataknobs()
    ).score == pytest.approx(2 / 3)


# -- grade and evaluate ----------------------------------------------------------------
def test_grade_fails_the_items_and_exits_1_when_nothing_scored(
    chat_server: ChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chat_server.handler = PENALTY_ONLY
    answers = answers_file(tmp_path / "in.jsonl", 3)
    out = tmp_path / "out.jsonl"
    base = [
        "grade",
        str(SKY),
        str(answers),
        "--judge",
        "openai/t",
        "--base-url",
        chat_server.base_url,
    ]
    assert main([*base, "-o", str(out)]) == 1  # was 0, every item 1.0
    err = capsys.readouterr().err
    assert "items not graded: 3" in err and FAILS in err
    assert not out.exists()  # nothing scored: -o keeps what it held
    # opted in: partial floors, flagged, exit 0
    assert main([*base, "-o", str(out), "--judge-failure", "partial"]) == 0
    reports = read_jsonl(out)
    assert [(r["score"], r["partial"]) for r in reports] == [(0.0, True)] * 3
    assert "partial scores: 3 items" in capsys.readouterr().err


def test_evaluate_counts_unscored_items_and_exits_1(
    chat_server: ChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chat_server.handler = PENALTY_ONLY
    ds = RubricDataset(prompt="Why is the sky blue?", rubric=Rubric.from_file(SKY))
    for i in range(3):
        ds.add_item(ANSWER, description=f"item {i}")
    path = tmp_path / "ds.json"
    ds.to_file(path)
    base = ["evaluate", str(path), "--judge", "openai/t", "--base-url", chat_server.base_url]
    assert main([*base, "--json"]) == 1  # was 0, score mean 1.0
    summary = json.loads(capsys.readouterr().out)
    assert summary["items_unscored"] == 3 and summary["score_mean"] is None
    assert main([*base, "--run-dir", str(tmp_path / "run")]) == 1
    assert "items without a score: 3" in capsys.readouterr().out
    chat_server.handler = EVERYTHING
    assert main([*base, "--no-cache"]) == 0


# -- rewards -----------------------------------------------------------------------------
def test_rubric_reward_gives_no_number_for_a_partly_failed_judge(chat_server: ChatServer) -> None:
    chat_server.handler = PENALTY_ONLY
    rubric = Rubric.from_file(SKY)
    with pytest.raises(RewardError, match=FAILS):  # was [1.0]
        RubricReward(rubric, grader(chat_server))(completions=[ANSWER])
    skip = RubricReward(rubric, grader(chat_server), failure_policy="skip")
    assert skip(completions=[ANSWER]) == [None]
    # a grader opted in to partial scores still gives no reward from them
    partial = grader(chat_server, judge_failure="partial")
    value = RubricReward(rubric, partial, failure_policy="value", failure_value=-1.0)
    assert value(completions=[ANSWER]) == [-1.0]
    assert (
        "partial score" in value.stats.failure_messages[0]
        or FAILS in value.stats.failure_messages[0]
    )
    chat_server.handler = EVERYTHING
    assert RubricReward(rubric, grader(chat_server))(completions=[ANSWER]) == [1.0]


@pytest.fixture
def reward_server(chat_server: ChatServer) -> Iterator[Callable[..., Served]]:
    def serve(on_failure: str = "error", **kw: Any) -> Served:
        settings = ServerSettings(
            source=FileSource(SKY),
            grader=grader(chat_server, **kw),
            token=TOKEN,
            default_rubric="why_sky_blue",
            on_failure=on_failure,  # type: ignore[arg-type]
        )
        return Served(create_app(settings))

    yield serve


def test_get_reward_applies_on_failure(
    chat_server: ChatServer, reward_server: Callable[..., Served]
) -> None:
    chat_server.handler = PENALTY_ONLY
    body = {"query": [ANSWER, ANSWER], "prompts": ["", ""]}
    with reward_server() as served, served.client() as client:  # --on-failure error
        r = client.post("/get_reward", json=body)
        assert r.status_code == 502, r.text  # was 200, rewards [1.0, 1.0], failed false
        assert FAILS in r.text
    # a batch where nothing scored is always an error: one rollout the judge answers fully
    ok = ANSWER + " (ok)"
    chat_server.handler = lambda b: (EVERYTHING if ok in json.dumps(b) else PENALTY_ONLY)(b)
    body = {"query": [ANSWER, ok], "prompts": ["", ""]}
    with reward_server("skip") as served, served.client() as client:
        reply = client.post("/get_reward", json=body).json()
        assert reply["rewards"] == [None, 1.0] and reply["failed"] == [True, False]
        assert FAILS in reply["errors"][0]
    with reward_server("neutral", judge_failure="partial") as served, served.client() as client:
        reply = client.post("/get_reward", json=body).json()
        assert reply["rewards"] == [0.5, 1.0]  # a partial score is no reward either
        assert reply["extra_logs"]["rubric_failed"] == [1.0, 0.0]


# -- gate ----------------------------------------------------------------------------------
def _graded(server: ChatServer, tmp_path: Path, name: str, handler: Any, n: int = 20) -> Path:
    """The reports of grading ``n`` answers, as `grade` writes them to stdout.

    (With ``-o``, a run in which nothing scored keeps what the file held: exit 1.)
    """
    server.handler = handler
    answers = answers_file(tmp_path / f"{name}-in.jsonl", n)
    args = ["grade", str(SKY), str(answers), "--judge", f"openai/{name}"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main([*args, "--base-url", server.base_url, "--no-cache"])
    path = tmp_path / f"{name}.jsonl"
    path.write_text(out.getvalue())
    return path


def _half_good(body: Any) -> Reply:
    """The judge of the baseline: scattering MET, the rest UNMET (score 10/19)."""
    key = _criterion(body)
    return _answer(body, key == "scattering" or ("Confusing" if key == "clarity" else False))


@pytest.mark.parametrize("metric", ["mean_score", "pass_rate"])
def test_gate_fails_when_the_new_run_has_judge_failures(
    chat_server: ChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], metric: str
) -> None:
    base = _graded(chat_server, tmp_path, "base", _half_good)
    new = _graded(chat_server, tmp_path, "new", PENALTY_ONLY)
    capsys.readouterr()
    args = ["gate", str(base), str(new), "--metric", metric, "--min-pairs", "2"]
    assert main(args) == 1  # was 0: "PASS mean_score 0.526 -> 1.000"
    out = capsys.readouterr().out
    assert "FAIL" in out and "the judge failed on 20 items of the new run" in out
    assert "item 'item-00'" in out and FAILS in out


def test_gate_fails_on_a_few_new_failures_that_still_pair_enough(
    chat_server: ChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = _graded(chat_server, tmp_path, "base", _half_good)
    # one item of twenty fails in the new run: coverage 95% pairs enough to decide

    def one_item_fails(body: Any) -> Reply:
        if ANSWER + " (3)" in json.dumps(body["messages"]):
            return PENALTY_ONLY(body)
        return _half_good(body)

    chat_server.handler = one_item_fails
    out = tmp_path / "new.jsonl"
    lines = [
        json.dumps({"id": f"item-{i:02d}", "submission": ANSWER + (" (3)" if i == 3 else "")})
        for i in range(20)
    ]
    (tmp_path / "new-in.jsonl").write_text("\n".join(lines) + "\n")
    args = ["grade", str(SKY), str(tmp_path / "new-in.jsonl"), "-o", str(out)]
    assert main([*args, "--judge", "openai/new", "--base-url", chat_server.base_url]) == 0
    capsys.readouterr()
    assert main(["gate", str(base), str(out)]) == 1  # was 0: 19 pairs, no change, PASS
    printed = capsys.readouterr().out
    assert "the judge failed on 1 item of the new run" in printed and "item 'item-03'" in printed
    assert "19 paired items" in printed
    # a report written before the rule (score 1.0 beside its judge errors) is failed too
    old = [json.loads(line) for line in out.read_text().splitlines()]
    for r in old:
        if r["id"] == "item-03":
            r.update(score=1.0, passed=True, error=None)
    legacy = tmp_path / "legacy.jsonl"
    legacy.write_text("".join(json.dumps(r) + "\n" for r in old))
    assert main(["gate", str(base), str(legacy), "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["verdict"] == "fail" and len(result["new_failures"]) == 1
    # the baseline failing there too is no new failure: the rest decides (no change: pass)
    assert main(["gate", str(out), str(out)]) == 0


# -- the pytest plugin ------------------------------------------------------------------------
def test_pytest_plugin_names_the_judge_errors(chat_server: ChatServer) -> None:
    from rubricjudge.integrations.pytest import assert_rubric

    chat_server.handler = PENALTY_ONLY
    with pytest.raises(RubricAssertionError) as caught:
        assert_rubric(ANSWER, SKY, judge=grader(chat_server))
    message = str(caught.value)
    assert "the judge failed on 3 of 4 criteria" in message
    assert "(first: scattering: server" in message
    # opted-in partial scores do not pass an assertion either
    with pytest.raises(RubricAssertionError, match="decided nothing"):
        assert_rubric(ANSWER, SKY, judge=grader(chat_server, judge_failure="partial"), min_score=0)
    # one rule: a failure on a criterion without weight cannot change the score
    rubric = Rubric(
        [
            Criterion(name="scattering", weight=1, requirement=PHRASES["scattering"]),
            Criterion(name="clarity", weight=0, requirement=PHRASES["clarity"] + "?"),
        ],
        pass_threshold=0.5,
    )
    chat_server.handler = judging({"scattering": True})
    assert assert_rubric(ANSWER, rubric, judge=grader(chat_server)).score == 1.0


# -- runs graded before the rule ---------------------------------------------------------------
def test_reports_stored_before_the_rule_are_read_without_their_score(
    chat_server: ChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rubricjudge._report._data import load_run
    from rubricjudge._runs._read import read_reports_jsonl

    partial = _graded(chat_server, tmp_path, "partial", PENALTY_ONLY, n=2)
    old = read_jsonl(partial)
    for r in old:  # what the old rule wrote: 1.0 and passed, beside three judge errors
        r.update(score=1.0, passed=True, error=None)
    legacy = tmp_path / "legacy.jsonl"
    legacy.write_text("".join(json.dumps(r) + "\n" for r in old))
    run = read_reports_jsonl(legacy)
    assert [(r.score, r.passed) for r in run.reports if r is not None] == [(None, None)] * 2
    assert all(FAILS in (r.error or "") for r in run.reports if r is not None)
    # the HTML report reads runs the same way
    data = load_run(legacy)
    assert [r.score for r in data.reports if r is not None] == [None, None]
    # an opted-in partial floor is kept as it is
    main(
        [
            "grade",
            str(SKY),
            str(answers_file(tmp_path / "p.jsonl", 1)),
            "-o",
            str(tmp_path / "f.jsonl"),
            "--judge",
            "openai/p",
            "--base-url",
            chat_server.base_url,
            "--judge-failure",
            "partial",
        ]
    )
    floor = read_reports_jsonl(tmp_path / "f.jsonl").reports[0]
    assert floor is not None and floor.partial is True and floor.score == 0.0


def test_gate_counts_items_the_new_run_never_graded_as_missing_not_failed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rubricjudge._runs._evaluate import evaluate_sync
    from tests.support import gate_runs

    base = gate_runs.run_dir(tmp_path / "base", 30, seed=1)
    ds = gate_runs.dataset(30, seed=2)
    grader = CriterionGrader(gate_runs.judge({}, 2), verdict_method="verdict-only")
    evaluate_sync(ds, grader, run_dir=tmp_path / "short", max_items=28, progress=False)
    # two items never graded: the coverage counts them (28 of 30 pair), no judge failed
    assert main(["gate", str(base), str(tmp_path / "short")]) == 0
    out = capsys.readouterr().out
    assert "the judge failed" not in out and "28 paired by id" in out


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([-8.0, -2.0, 0.0, 1.0, 3.0, 10.0]),
            st.booleans(),  # multi-choice
            st.sampled_from(["MET", "UNMET", "CANNOT_ASSESS", "fail"]),
        ),
        min_size=1,
        max_size=4,
    ),
    st.sampled_from(["skip", "zero", "partial", "fail"]),
)
def test_a_partial_score_is_never_above_any_completion(
    spec: list[tuple[float, bool, str]], strategy: str
) -> None:
    """Whatever the judge would have said on the failed criteria, the floor is not above it."""
    levels = [
        CriterionOption(label=x, value=v) for x, v in (("lo", 0.0), ("mid", 0.4), ("hi", 1.0))
    ]
    criteria = [
        Criterion(name=f"c{i}", weight=w, requirement=f"R{i}", options=levels if multi else None)
        for i, (w, multi, _) in enumerate(spec)
    ]
    rubric = Rubric(criteria)
    policy = ScoringPolicy(strategy, judge_failure="partial")  # type: ignore[arg-type]

    def decided(c: Criterion, answer: str) -> CriterionReport:
        if c.options is not None:
            pick = {"MET": 2, "UNMET": 0}.get(answer)
            if pick is None:
                return CriterionReport(criterion=c, verdict=CriterionVerdict.CANNOT_ASSESS)
            opt = levels[pick]
            sel = OptionSelection(index=pick, label=opt.label, value=opt.value)
            return CriterionReport(criterion=c, selection=sel)
        return CriterionReport(criterion=c, verdict=CriterionVerdict(answer))

    reports = [
        _failed(c) if answer == "fail" else decided(c, answer)
        for c, (_, _, answer) in zip(criteria, spec, strict=True)
    ]
    floor = finalize(rubric, reports, policy)
    failed = [i for i, (_, _, a) in enumerate(spec) if a == "fail"]
    answers = ["MET", "UNMET", "CANNOT_ASSESS"]
    for combo in itertools.product(answers, repeat=len(failed)):
        done = list(reports)
        for i, answer in zip(failed, combo, strict=True):
            done[i] = decided(criteria[i], answer)
        full = finalize(rubric, done, policy)
        if floor.score is not None and full.score is not None:
            assert floor.score <= full.score + 1e-12, (combo, floor.score, full.score)
