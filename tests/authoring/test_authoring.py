"""``draft`` and ``refine`` against a scripted OpenAI-compatible judge on 127.0.0.1.

The judge (tests/support/chat_server.py) answers each kind of request by its schema: a rubric
draft, proposed rewrites, or a yes/no verdict on one criterion. Each answer's hidden
label is written in its text (``[truth MET]``); answers marked ``[hard]`` fool the
judge unless the criterion's wording contains ``PRECISE``, so a rewrite with that word
measurably helps and one without it does not.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import Criterion, Rubric, RubricDataset
from rubricjudge._authoring._refine import refine_rubric
from rubricjudge._authoring._stats import mcnemar_exact
from rubricjudge._cli.main import main
from rubricjudge._lint._rules import lint_rubric
from rubricjudge.judges import get_judge
from tests.support.chat_server import ChatServer, Reply, schema_of

REQUIREMENT = "States the boiling point of water at sea level"
GOOD_DRAFT = {
    "name": "Boiling point answer",
    "criteria": [
        {
            "name": "Gives value",
            "requirement": "States that water boils at 100 degrees Celsius at sea level",
            "kind": "check",
            "weight": 8,
            "options": [],
        },
        {
            "name": "Wrong unit",
            "requirement": "Gives the temperature in Fahrenheit without a unit label",
            "kind": "penalty",
            "weight": 4,
            "options": [],
        },
        {
            "name": "Clarity",
            "requirement": "How clearly the explanation links air pressure to the boiling point",
            "kind": "scale",
            "weight": 3,
            "options": [
                {"label": "clear", "value": 1, "description": "names the link"},
                {"label": "unclear", "value": 0, "description": "no link"},
                {"label": "partial", "value": 0.5, "description": "hints at it"},
            ],
        },
    ],
}


def _submission(user: str) -> str:
    found = re.search(r"<submission-[0-9a-f]+>\n(.*?)\n</submission-", user, re.S)
    assert found, user
    return found.group(1)


def judge_server(rewrite: str = "PRECISE: states 100 degrees Celsius at sea level") -> Any:
    """A handler: verdicts from the hidden labels, a draft, and proposals of ``rewrite``."""

    def handle(body: Any) -> Reply:
        schema = schema_of(body) or {}
        props = schema.get("properties", {})
        user = body["messages"][-1]["content"]
        if "criteria" in props:
            return Reply.json(GOOD_DRAFT)
        if "candidates" in props:
            why = "names the value the labellers looked for"
            return Reply.json(
                {"candidates": [{"kind": "rewrite", "requirement": rewrite, "why": why}]}
            )
        statement = re.search(r"Statement about the submission: (.*)", user)
        assert statement, user
        text = _submission(user)
        if "politely" in statement.group(1):  # every answer is polite, as labelled
            return Reply.json({"reason": "scripted", "answer": "yes"})
        label = re.search(r"\[truth (MET|UNMET)\]", text)
        assert label, text
        truth = label.group(1) == "MET"
        fooled = "[hard]" in text and "PRECISE" not in statement.group(1)
        said = truth != fooled
        return Reply.json({"reason": "scripted", "answer": "yes" if said else "no"})

    return handle


def _rubric() -> Rubric:
    return Rubric(
        [
            Criterion(name="boils", weight=2, requirement=REQUIREMENT),
            Criterion(
                name="polite", weight=1, requirement="Addresses the reader politely throughout"
            ),
        ],
        id="water",
        name="water",
        version="1.0.0",
    )


def _dataset(n: int = 40, labellers: bool = False) -> RubricDataset:
    data = RubricDataset(prompt="At what temperature does water boil?", rubric=_rubric())
    for i in range(n):
        met = i % 2 == 0
        hard = i % 4 in (0, 1)  # half the answers fool the judge on the first wording
        text = f"answer {i} [truth {'MET' if met else 'UNMET'}]{' [hard]' if hard else ''}"
        gt = {"boils": "MET" if met else "UNMET", "polite": "MET"}
        meta: dict[str, Any] = {}
        if labellers:  # two labellers, who disagree on 'polite' for every third answer
            other = "UNMET" if i % 3 == 0 else "MET"
            meta = {
                "human_labels": {
                    "polite": {
                        "ana": {"label": "MET", "at": "2026-01-01T00:00:00Z"},
                        "ben": {"label": other, "at": "2026-01-01T00:00:01Z"},
                    }
                }
            }
        data.add_item(f"{text}", ground_truth=gt, id=f"a{i}", metadata=meta)
    return data


def _files(tmp_path: Path, **kw: Any) -> tuple[Path, Path]:
    rubric_path = tmp_path / "water.yaml"
    _rubric().to_file(rubric_path)
    data_path = tmp_path / "labelled.json"
    _dataset(**kw).to_file(data_path)
    return rubric_path, data_path


def _cli(server: ChatServer, *args: str) -> int:
    return main([*args, "--judge", "openai/test", "--base-url", server.base_url])


# -- the test --------------------------------------------------------------------------
def test_mcnemar_exact_is_the_one_sided_binomial_tail() -> None:
    assert mcnemar_exact(0, 5) == pytest.approx(1 / 32)
    assert mcnemar_exact(3, 3) == pytest.approx(42 / 64)
    assert mcnemar_exact(5, 0) == 1.0
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(1, 9) == pytest.approx(11 / 1024)
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


# -- refine ----------------------------------------------------------------------------
def test_refine_keeps_a_rewrite_that_helps_on_held_out_items(
    chat_server: ChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chat_server.handler = judge_server()
    rubric_path, data_path = _files(tmp_path)
    before = rubric_path.read_bytes()
    out, report = tmp_path / "water.v2.yaml", tmp_path / "report.json"
    code = _cli(chat_server, "refine", str(rubric_path), str(data_path), "-o", str(out),
                "--report", str(report))  # fmt: skip
    assert code == 0
    assert rubric_path.read_bytes() == before  # the user's rubric is never touched
    refined = Rubric.from_file(out)
    assert refined.version == "1.1.0"
    assert refined.criteria[0].requirement.startswith("PRECISE")
    assert refined.criteria[1].requirement == _rubric().criteria[1].requirement
    [entry] = refined.metadata["changelog"]
    assert entry["version"] == "1.1.0" and "boils: rewrite" in entry["changes"][0]
    assert "McNemar exact" in entry["changes"][0]
    data = json.loads(report.read_text())
    boils = data["criteria"][0]
    assert boils["heldout_agreement_before"] == pytest.approx(0.5)
    assert boils["heldout_agreement_after"] == 1.0
    assert boils["change"] == "rewrite"
    assert set(data["propose_ids"]).isdisjoint(data["heldout_ids"])
    assert len(data["heldout_ids"]) == 20
    # the proposal saw only propose items: no held-out answer was evidence for a rewrite
    asked = [
        r.json["messages"][-1]["content"]
        for r in chat_server.chat_requests
        if "candidates" in (schema_of(r.json) or {}).get("properties", {})
    ]
    assert len(asked) == 1
    shown = set(re.findall(r"answer (\d+) \[truth", asked[0]))
    assert shown and shown <= {i.removeprefix("a") for i in data["propose_ids"]}
    printed = capsys.readouterr().out
    assert "kept: boils: rewrite" in printed and "wrote version 1.1.0" in printed


def test_refine_keeps_the_rubric_when_rewrites_do_not_help(
    chat_server: ChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chat_server.handler = judge_server(rewrite="Mentions a temperature for boiling water")
    rubric_path, data_path = _files(tmp_path)
    out = tmp_path / "water.v2.yaml"
    assert _cli(chat_server, "refine", str(rubric_path), str(data_path), "-o", str(out)) == 0
    assert not out.exists()
    printed = capsys.readouterr().out
    assert "the rubric is unchanged; no rubric was written" in printed
    assert "McNemar exact test" in printed


def test_refine_never_overwrites_the_rubric_or_an_existing_file(
    chat_server: ChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chat_server.handler = judge_server()
    rubric_path, data_path = _files(tmp_path)
    before = rubric_path.read_bytes()
    args = ["refine", str(rubric_path), str(data_path), "-o"]
    assert _cli(chat_server, *args, str(rubric_path), "--force") == 1
    assert "is the input rubric; it is never overwritten" in capsys.readouterr().err
    taken = tmp_path / "taken.yaml"
    taken.write_text("mine\n")
    assert _cli(chat_server, *args, str(taken)) == 1
    assert "exists; give another path, or --force" in capsys.readouterr().err
    assert taken.read_text() == "mine\n" and rubric_path.read_bytes() == before
    assert chat_server.chat_requests == []  # refused before any judge call
    # the default output is beside the rubric, named with the new version
    assert _cli(chat_server, "refine", str(rubric_path), str(data_path)) == 0
    assert Rubric.from_file(tmp_path / "water.v1.1.0.yaml").version == "1.1.0"


def test_refine_stores_the_new_version_in_the_registry(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    from rubricjudge.registry import RubricRegistry

    chat_server.handler = judge_server()
    rubric_path, data_path = _files(tmp_path)
    db = tmp_path / "registry.sqlite3"
    out = tmp_path / "new.yaml"
    args = ["refine", str(rubric_path), str(data_path), "-o", str(out), "--registry", str(db)]
    assert _cli(chat_server, *args) == 0
    history = RubricRegistry(db).history("water")
    assert [v.version for v in history] == ["1.0.0", "1.1.0"]
    stored = RubricRegistry(db).get("water")
    assert stored.criteria[0].requirement.startswith("PRECISE")
    assert stored.metadata["changelog"][0]["changes"][0].startswith("boils: rewrite")


def test_a_judge_failure_stops_refine_and_writes_nothing(
    chat_server: ChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    handle = judge_server()

    def failing(body: Any) -> Reply:
        user = body["messages"][-1]["content"]
        if "answer 7 [truth" in user and "Statement about" in user:
            return Reply.error(400, "bad request")  # not retried: a failure
        return handle(body)

    chat_server.handler = failing
    rubric_path, data_path = _files(tmp_path)
    out, report = tmp_path / "new.yaml", tmp_path / "report.json"
    code = _cli(chat_server, "refine", str(rubric_path), str(data_path), "-o", str(out),
                "--report", str(report))  # fmt: skip
    assert code == 1
    err = capsys.readouterr().err
    assert "item a7" in err and "the judge failed" in err and "nothing was written" in err
    assert not out.exists() and not report.exists()


async def test_labeller_disagreement_makes_a_criterion_a_target(chat_server: ChatServer) -> None:
    chat_server.handler = judge_server()
    judge = get_judge("openai/test", base_url=chat_server.base_url, cache=False)
    data = _dataset(labellers=True)
    result = await refine_rubric(_rubric(), data, judge, max_criteria=2, examples=0)
    polite = result.criteria[1]
    assert polite.propose_agreement == 1.0  # the judge agrees with the label that counts
    assert polite.labeller_pairs == 20 and polite.labeller_disagreements > 0
    assert polite.targeted  # but the labellers do not agree with each other
    assert polite.change is None  # and a rewrite cannot beat 100% on held-out items


async def test_refine_needs_labels_that_fit_the_rubric(chat_server: ChatServer) -> None:
    from rubricjudge.errors import ConfigError

    judge = get_judge("openai/test", base_url=chat_server.base_url, cache=False)
    other = Rubric([Criterion(name="x", requirement="Says something about boiling water")])
    with pytest.raises(ConfigError, match="labels are for the criteria"):
        await refine_rubric(other, _dataset(), judge)
    with pytest.raises(ConfigError, match="cannot be split"):
        await refine_rubric(_rubric(), _dataset(n=1), judge)
    assert chat_server.chat_requests == []


# -- draft -----------------------------------------------------------------------------
def _task(tmp_path: Path) -> Path:
    task = tmp_path / "task.txt"
    task.write_text("At what temperature does water boil at sea level, and why?\n")
    return task


def test_draft_writes_a_rubric_validate_and_lint_accept(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    chat_server.handler = judge_server()
    out = tmp_path / "drafted.yaml"
    bad = tmp_path / "bad.txt"
    bad.write_text("Water boils at 212.")
    assert _cli(chat_server, "draft", str(_task(tmp_path)), "-o", str(out), "--bad", str(bad)) == 0
    rubric = Rubric.from_file(out)
    assert [c.name for c in rubric.criteria] == ["gives_value", "wrong_unit", "clarity"]
    assert rubric.criteria[1].weight == -4  # a penalty
    assert [o.label for o in rubric.criteria[2].options or []] == ["unclear", "partial", "clear"]
    assert [f for f in lint_rubric(rubric) if f.severity != "info"] == []
    assert main(["validate", str(out)]) == 0 and main(["lint", str(out)]) == 0
    user = chat_server.chat_requests[0].json["messages"][-1]["content"]
    assert "<bad_answer_1>\nWater boils at 212.\n</bad_answer_1>" in user


def test_draft_is_deterministic_with_a_cached_judge(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    chat_server.handler = judge_server()
    first, second = tmp_path / "one.yaml", tmp_path / "two.yaml"
    assert _cli(chat_server, "draft", str(_task(tmp_path)), "-o", str(first), "--seed", "7") == 0
    chat_server.handler = lambda body: Reply.error(400, "the cache must answer")
    assert _cli(chat_server, "draft", str(_task(tmp_path)), "-o", str(second), "--seed", "7") == 0
    assert first.read_bytes() == second.read_bytes()
    assert chat_server.chat_requests[0].json.get("seed") == 7


def test_draft_sends_lint_findings_back_and_keeps_the_better_draft(
    chat_server: ChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vague = {
        "name": "x",
        "criteria": [
            {"name": "a", "requirement": "Good", "kind": "check", "weight": 5, "options": []}
        ],
    }
    chat_server.script(Reply.json(vague), Reply.json(GOOD_DRAFT))
    out = tmp_path / "drafted.yaml"
    assert _cli(chat_server, "draft", str(_task(tmp_path)), "-o", str(out)) == 0
    assert len(Rubric.from_file(out).criteria) == 3
    second = chat_server.chat_requests[1].json["messages"][-1]["content"]
    assert "too short to judge consistently" in second and "vague wording" in second
    assert "lint-clean" in capsys.readouterr().err


@pytest.mark.parametrize(
    "reply",
    [
        Reply.error(400, "no"),
        Reply.json(
            {
                "name": "x",
                "criteria": [
                    {"name": "a", "requirement": " ", "kind": "check", "weight": 3, "options": []}
                ],
            }
        ),  # fmt: skip
    ],
    ids=["call-fails", "empty-requirement"],
)
def test_a_failed_draft_is_an_error_and_writes_nothing(
    chat_server: ChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], reply: Reply
) -> None:
    chat_server.handler = lambda body: reply
    out = tmp_path / "drafted.yaml"
    assert _cli(chat_server, "draft", str(_task(tmp_path)), "-o", str(out)) == 1
    assert "nothing was written" in capsys.readouterr().err
    assert not out.exists() and list(tmp_path.glob(".drafted.yaml*")) == []


def test_draft_refuses_to_replace_a_file_without_force(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    chat_server.handler = judge_server()
    out = tmp_path / "drafted.yaml"
    out.write_text("mine\n")
    assert _cli(chat_server, "draft", str(_task(tmp_path)), "-o", str(out)) == 1
    assert out.read_text() == "mine\n" and chat_server.chat_requests == []
    assert _cli(chat_server, "draft", str(_task(tmp_path)), "-o", str(out), "--force") == 0
    assert len(Rubric.from_file(out).criteria) == 3


async def test_a_proposal_that_repeats_the_wording_is_not_tested(chat_server: ChatServer) -> None:
    chat_server.handler = judge_server(rewrite=f"  {REQUIREMENT} ")  # the 1.5B model's habit
    judge = get_judge("openai/test", base_url=chat_server.base_url, cache=False)
    result = await refine_rubric(_rubric(), _dataset(), judge, max_criteria=1, examples=0)
    boils = result.criteria[0]
    assert boils.targeted and boils.candidates == [] and result.tests == 0
    assert boils.dropped == [f"rewrite {REQUIREMENT!r}: repeats the wording or another proposal"]
    assert not result.changed and result.rubric is result.original


def test_draft_asks_again_when_the_judge_repeats_a_criterion(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    one = GOOD_DRAFT["criteria"][0]
    chat_server.script(Reply.json({"name": "x", "criteria": [one, one, one]}), GOOD_DRAFT)
    out = tmp_path / "drafted.yaml"
    assert _cli(chat_server, "draft", str(_task(tmp_path)), "-o", str(out)) == 0
    assert len(Rubric.from_file(out).criteria) == 3
    second = chat_server.chat_requests[1].json["messages"][-1]["content"]
    assert "dropped criteria[1]: it repeats an earlier requirement" in second
