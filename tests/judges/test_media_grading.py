"""Images and documents in what is graded: read, checked, sent in each wire format, cached."""

from __future__ import annotations

import base64
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import Criterion, Rubric, RubricDataset
from rubricjudge._cli.main import main
from rubricjudge._conversations._submission import to_submission
from rubricjudge._errors import ConfigError, DatasetError
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._judges._base import JudgeConfig, MediaBudget
from rubricjudge._judges._registry import get_judge
from tests.support.anthropic_server import AnthropicServer, tool_use
from tests.support.chat_server import ChatServer, Reply
from tests.support.litellm_stand_in import HAS_LITELLM
from tests.support.litellm_stand_in import reply as litellm_reply
from tests.support.media_helpers import pdf, png

RED = png(4, 3, (255, 0, 0))
BLUE = png(4, 3, (0, 0, 255))
B64 = base64.b64encode


def rubric() -> Rubric:
    return Rubric([Criterion(name="red", requirement="The picture is red")])


def colour_of(url: str) -> str:
    """What a vision judge would see: the colour of the image behind a data URL."""
    from PIL import Image

    head, data = url.split(",", 1)
    assert head == "data:image/png;base64", head
    with Image.open(io.BytesIO(base64.b64decode(data))) as img:
        r, g, b = img.convert("RGB").getpixel((0, 0))  # type: ignore[misc]
    return "red" if r > b else "blue"


def vision(body: Any) -> Reply:
    """A judge that answers from the image it was sent (yes when it is red)."""
    content = body["messages"][1]["content"]
    urls = [p["image_url"]["url"] for p in content if p["type"] == "image_url"]
    answer = "yes" if urls and all(colour_of(u) == "red" for u in urls) else "no"
    return Reply.json({"reason": "looked", "answer": answer})


def write_inputs(tmp_path: Path, lines: list[dict[str, Any]]) -> tuple[Path, Path]:
    rubric_file = tmp_path / "rubric.json"
    rubric_file.write_text(json.dumps(rubric().to_dict()))
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return rubric_file, data


@pytest.fixture
def pictures(tmp_path: Path) -> Path:
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "red.png").write_bytes(RED)
    (tmp_path / "img" / "same-red-other-name.png").write_bytes(RED)
    (tmp_path / "img" / "blue.png").write_bytes(BLUE)
    return tmp_path


def grade(rubric_file: Path, data: Path, server: ChatServer, *extra: str) -> int:
    return main(
        [
            "grade",
            str(rubric_file),
            str(data),
            "--judge",
            "openai/vision-test",
            "--base-url",
            server.base_url,
            "--evidence",
            "off",
            "--concurrency",
            "1",
            *extra,
        ]
    )


def test_grade_sends_each_image_as_a_data_url_and_judges_one_image_once(
    chat_server: ChatServer, pictures: Path, capsys: Any
) -> None:
    chat_server.handler = vision
    rubric_file, data = write_inputs(
        pictures,
        [
            {"id": "a", "submission": [{"type": "text", "text": "My picture:"},
                                       {"type": "image", "path": "img/red.png"}]},
            {"id": "b", "submission": [{"type": "image", "path": "img/blue.png"}]},
            {"id": "c", "submission": [{"type": "text", "text": "My picture:"},
                                       {"type": "image", "path": "img/same-red-other-name.png"}]},
        ],
    )  # fmt: skip
    out = pictures / "out.jsonl"
    assert grade(rubric_file, data, chat_server, "-o", str(out)) == 0
    reports = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in reports] == ["a", "b", "c"]
    assert [r["report"][0]["verdict"] for r in reports] == ["MET", "UNMET", "MET"]
    assert [r["score"] for r in reports] == [1.0, 0.0, 1.0]
    # c is a's image under another name: answered from the cache, not asked again
    assert len(chat_server.chat_requests) == 2
    body = chat_server.chat_requests[0].json
    system, user = body["messages"]
    assert system["role"] == "system" and isinstance(system["content"], str)
    content = user["content"]
    assert [p["type"] for p in content] == ["text", "text", "image_url", "text"]
    prefix, line, image, rest = content
    assert "My picture:\n[image 1]" in prefix["text"]
    assert prefix["text"].endswith("([image 1], [document 2], [reference image 1], ...).\n\n")
    assert line == {"type": "text", "text": f"[image 1] red.png, PNG 4x3, {len(RED)} bytes:"}
    assert image == {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64," + B64(RED).decode()},
    }
    assert "The picture is red" in rest["text"] and "[image" not in rest["text"]
    capsys.readouterr()


def test_a_changed_image_is_asked_again_and_resume_sees_the_change(
    chat_server: ChatServer, pictures: Path, capsys: Any
) -> None:
    chat_server.handler = vision
    picture = pictures / "img" / "mine.png"
    picture.write_bytes(RED)
    rubric_file, data = write_inputs(
        pictures, [{"id": "a", "submission": [{"type": "image", "path": "img/mine.png"}]}]
    )
    run = pictures / "run"
    assert grade(rubric_file, data, chat_server, "--run-dir", str(run)) == 0
    assert len(chat_server.chat_requests) == 1
    assert grade(rubric_file, data, chat_server, "--run-dir", str(run), "--resume") == 0
    assert len(chat_server.chat_requests) == 1  # nothing left to grade
    picture.write_bytes(BLUE)  # same name, same JSONL bytes, another image
    capsys.readouterr()
    assert grade(rubric_file, data, chat_server, "--run-dir", str(run), "--resume") != 0
    assert "was made for a different input" in capsys.readouterr().err  # the image changed
    out = pictures / "again.jsonl"
    assert grade(rubric_file, data, chat_server, "-o", str(out)) == 0
    assert len(chat_server.chat_requests) == 2  # not the cached answer about the red one
    assert json.loads(out.read_text())["report"][0]["verdict"] == "UNMET"


@pytest.mark.parametrize(
    ("part", "message"),
    [
        (
            {"type": "image", "path": "../outside.png"},
            r"in\.jsonl line 1: submission\[0\]: the path '\.\./outside\.png' leads outside",
        ),
        (
            {"type": "image", "url": "https://example.com/a.png"},
            r"line 1: submission\[0\]: the URL 'https://example.com/a.png' is not fetched",
        ),
        (
            {"type": "image", "path": "img/missing.png"},
            r"line 1: submission\[0\]: the file 'img/missing.png' was not found",
        ),
        (
            {"type": "image", "path": "img/not-really.png"},
            r"submission\[0\]: its bytes are not a PNG, JPEG, GIF or WebP image nor a PDF",
        ),
        (
            {"type": "image", "data": B64(pdf(["x"])).decode()},
            r"submission\[0\]: it is marked as an image but its bytes are a PDF",
        ),
        (
            {"type": "image", "path": "img/red.png", "data": "AAAA"},
            r"submission\[0\]: an image part needs exactly one of 'path', 'url' or 'data' "
            r"\(it has path, data\)",
        ),
        ({"type": "image", "data": "no base64!"}, r"submission\[0\]: 'data' is not valid base64"),
    ],
)
def test_bad_parts_are_refused_naming_the_line_and_the_part(
    chat_server: ChatServer, pictures: Path, capsys: Any, part: Any, message: str
) -> None:
    (pictures.parent / "outside.png").write_bytes(RED)
    (pictures / "img" / "not-really.png").write_bytes(b"hello, I am text")
    rubric_file, data = write_inputs(pictures, [{"id": "a", "submission": [part]}])
    assert grade(rubric_file, data, chat_server) == 1
    err = capsys.readouterr().err
    assert re.search(message, err), err
    assert "Traceback" not in err and not chat_server.chat_requests


def test_the_media_root_allows_a_wider_folder(
    pictures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (pictures.parent / "shared.png").write_bytes(RED)
    ds_file = pictures / "d.json"
    item = {"id": "a", "submission": [{"type": "image", "path": "../shared.png"}]}
    ds_file.write_text(json.dumps({"prompt": "p", "rubric": rubric().to_dict(), "items": [item]}))
    with pytest.raises(DatasetError, match=r"items\[0\]\.submission\[0\]: the path .* outside"):
        RubricDataset.from_file(ds_file)
    monkeypatch.setenv("RUBRICJUDGE_MEDIA_ROOT", str(pictures.parent))
    ds = RubricDataset.from_file(ds_file)
    sub = ds.items[0].submission
    assert not isinstance(sub, str)
    assert [p.sha256 for p in getattr(sub, "media", ())] == [
        to_submission([{"type": "image", "data": B64(RED).decode()}]).media[0].sha256
    ]


def test_limits_on_size_and_count(pictures: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rubricjudge._conversations import _media_source as _media

    monkeypatch.setattr(_media, "MAX_PART_BYTES", 50)
    with pytest.raises(ConfigError, match=r"to_grade\[1\]: 'data' is over the limit of 50"):
        to_submission([{"type": "text", "text": "x"}, {"type": "image", "data": B64(RED).decode()}])
    monkeypatch.setattr(_media, "MAX_PART_BYTES", 1 << 20)
    monkeypatch.setattr(_media, "MAX_PARTS", 2)
    part = {"type": "image", "data": B64(RED).decode()}
    with pytest.raises(ConfigError, match=r"to_grade\[2\]: a submission may hold at most 2"):
        to_submission([part, part, part])


def test_conversations_in_either_api_form_carry_their_images() -> None:
    url = "data:image/png;base64," + B64(RED).decode()
    openai = [
        {"role": "user", "content": [{"type": "text", "text": "Draw it"}]},
        {"role": "assistant", "content": [{"type": "image_url", "image_url": {"url": url}}]},
    ]
    block = {"type": "base64", "media_type": "image/png", "data": B64(RED).decode()}
    doc = {"type": "base64", "media_type": "application/pdf", "data": B64(pdf(["Q3"])).decode()}
    anthropic = [
        {"role": "user", "content": "Draw it"},
        {
            "role": "assistant",
            "content": [
                {"type": "image", "source": block},
                {"type": "document", "source": doc},
                {"type": "text", "text": "done"},
            ],
        },
    ]
    a, b = to_submission(openai), to_submission(anthropic)
    assert [p.sha256 for p in a.media] == [b.media[0].sha256]
    assert [(p.kind, p.number) for p in b.media] == [("image", 1), ("document", 2)]
    assert b.conversation is not None
    assert b.conversation.messages[1].content == "[image 1]\n[document 2]\ndone"
    assert b.conversation.messages[1].media == (1, 2)
    again = to_submission(b.to_data())  # written in OpenAI's form, read back the same
    assert again.media == b.media and again.conversation == b.conversation


def test_a_dataset_with_images_round_trips_with_the_bytes_inline(pictures: Path) -> None:
    ds_file = pictures / "d.yaml"
    parts = [{"type": "text", "text": "Here"}, {"type": "image", "path": "img/red.png"}]
    ds_file.write_text(
        json.dumps({"prompt": "p", "rubric": rubric().to_dict(), "items": [{"submission": parts}]})
    )
    ds = RubricDataset.from_file(ds_file)
    for name in ("copy.json", "copy.jsonl", "copy.yaml"):
        ds.to_file(pictures / "elsewhere" / name) if False else None
        target = pictures.parent / name  # another folder: the bytes travel with the file
        ds.to_file(target)
        back = RubricDataset.from_file(target)
        assert back.items[0].submission == ds.items[0].submission


def test_an_image_over_the_budget_is_downscaled_and_the_judge_is_told(
    chat_server: ChatServer,
) -> None:
    big = png(64, 48, (255, 0, 0))
    judge = get_judge(
        "openai/vision-test",
        base_url=chat_server.base_url,
        cache=False,
        media_budget=MediaBudget(max_pixels=16 * 12),
    )
    chat_server.handler = vision
    sub = [{"type": "image", "data": B64(big).decode(), "name": "big.png"}]
    report = CriterionGrader(judge, evidence="off").grade_sync(rubric(), sub)
    assert report.report[0].verdict is not None and report.report[0].verdict.value == "MET"
    content = chat_server.chat_requests[0].json["messages"][1]["content"]
    lines = [p["text"] for p in content if p["type"] == "text" and p["text"].startswith("[image")]
    assert lines == [
        "[image 1] big.png, PNG 64x48, "
        f"{len(big)} bytes (downscaled from 64x48 to 16x12 to fit this judge's budget):"
    ]
    from PIL import Image

    (url,) = [p["image_url"]["url"] for p in content if p["type"] == "image_url"]
    with Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))) as img:
        assert img.size == (16, 12)


def test_past_the_budget_parts_are_left_out_visibly(chat_server: ChatServer) -> None:
    judge = get_judge(
        "openai/vision-test",
        base_url=chat_server.base_url,
        cache=False,
        media_budget=MediaBudget(max_parts=1),
    )
    chat_server.handler = vision
    part = {"type": "image", "data": B64(RED).decode()}
    CriterionGrader(judge, evidence="off").grade_sync(rubric(), [part, part])
    content = chat_server.chat_requests[0].json["messages"][1]["content"]
    assert [p["type"] for p in content] == ["text", "text", "image_url", "text", "text"]
    assert content[3]["text"] == (
        f"[image 2] PNG 4x3, {len(RED)} bytes "
        "(left out: over this judge's budget of 1 parts a request):"
    )


@pytest.fixture
def anthropic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[AnthropicServer]:
    monkeypatch.setenv("RUBRICJUDGE_CACHE_DIR", str(tmp_path / "cache"))
    for var in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    with AnthropicServer() as s:
        yield s


def test_anthropic_gets_image_and_document_blocks_after_the_cached_prefix(
    anthropic: AnthropicServer,
) -> None:
    document = pdf(["Revenue grew in Q3"])
    anthropic.script(tool_use({"reason": "seen", "answer": "yes"}, name="criterion_judgment"))
    judge = get_judge(
        "anthropic/claude-test", base_url=anthropic.base_url, api_key="k", cache=False
    )
    sub = [
        {"type": "text", "text": "Report attached"},
        {"type": "image", "data": B64(RED).decode()},
        {"type": "document", "data": B64(document).decode(), "name": "q3.pdf"},
    ]
    report = CriterionGrader(judge, evidence="off").grade_sync(rubric(), sub)
    assert report.report[0].verdict is not None and report.report[0].verdict.value == "MET"
    content = anthropic.requests[0].json["messages"][0]["content"]
    assert [b["type"] for b in content] == ["text", "text", "image", "text", "document", "text"]
    assert content[1] == {"type": "text", "text": f"[image 1] PNG 4x3, {len(RED)} bytes:"}
    assert content[2] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": B64(RED).decode()},
    }
    assert content[3]["text"] == f"[document 2] q3.pdf, PDF, {len(document):,} bytes:"
    assert content[4] == {
        "type": "document",
        "source": {
            "type": "base64",
            "media_type": "application/pdf",
            "data": B64(document).decode(),
        },
        "cache_control": {"type": "ephemeral"},
    }
    assert "cache_control" not in content[0] and "The picture is red" in content[5]["text"]


def test_openai_documents_go_as_file_parts(chat_server: ChatServer) -> None:
    document = pdf(["Revenue grew in Q3"])
    judge = get_judge("openai/vision-test", base_url=chat_server.base_url, cache=False)
    sub = [{"type": "document", "data": B64(document).decode(), "name": "reports/q3.pdf"}]
    CriterionGrader(judge, evidence="off").grade_sync(rubric(), sub)
    content = chat_server.chat_requests[0].json["messages"][1]["content"]
    assert content[2] == {
        "type": "file",
        "file": {
            "filename": "q3.pdf",
            "file_data": "data:application/pdf;base64," + B64(document).decode(),
        },
    }


def test_the_text_only_local_judge_records_a_failure_not_a_verdict(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF")
    judge = get_judge(f"local/{gguf}", cache=False)
    sub = [
        {"type": "image", "data": B64(RED).decode()},
        {"type": "image", "data": B64(BLUE).decode()},
    ]
    report = CriterionGrader(judge, evidence="off").grade_sync(rubric(), sub)
    (cr,) = report.report
    assert cr.is_error and cr.error is not None  # the failure policy's verdict, marked failed
    assert "the local judge reads text only and this submission holds 2 images" in cr.error


def test_text_judges_config_is_unchanged_without_media() -> None:
    from rubricjudge._runs._fingerprint import describe_judge

    class Judge:
        name = "j"
        config = JudgeConfig()

    assert "media_budget" not in describe_judge(Judge())["config"]


def test_validate_checks_the_parts_of_a_data_file(pictures: Path, capsys: Any) -> None:
    rubric_file, data = write_inputs(
        pictures,
        [
            {"id": "a", "submission": [{"type": "image", "path": "img/red.png"}]},
            {"id": "b", "submission": [{"type": "image", "path": "../outside.png"}]},
        ],
    )
    (pictures.parent / "outside.png").write_bytes(RED)
    assert main(["validate", str(rubric_file), "--data", str(data)]) == 1
    err = capsys.readouterr().err
    assert f"rubricjudge: error: {data} line 2: submission[0]: the path '../outside.png'" in err
    assert main(["validate", str(rubric_file), "--data", str(data), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["valid"] is False and out["data"]["valid"] is False
    data.write_text(json.dumps({"submission": [{"type": "image", "path": "img/red.png"}]}) + "\n")
    assert main(["validate", str(rubric_file), "--data", str(data)]) == 0
    assert f"{data}: OK (1 item, 1 image, 0 documents)" in capsys.readouterr().out


def test_a_fault_seen_in_an_image_is_not_undone_by_the_quote_check(
    chat_server: ChatServer,
) -> None:
    chat_server.handler = vision
    fault = Rubric([Criterion(name="red", requirement="The picture is red", weight=-5)])
    judge = get_judge("openai/vision-test", base_url=chat_server.base_url, cache=False)
    report = CriterionGrader(judge).grade_sync(
        fault, [{"type": "image", "data": B64(RED).decode()}]
    )
    (cr,) = report.report
    assert cr.verdict is not None and cr.verdict.value == "MET"  # no words to quote: it stands
    assert cr.evidence_check is not None
    assert cr.evidence_check.action.startswith("unchecked (the submission holds images")
    assert len(chat_server.chat_requests) == 1  # no quote call was made
    chat_server.handler = None  # the schema's first answers: yes, then an empty quote
    text = CriterionGrader(judge).grade_sync(fault, "plain text")
    assert text.report[0].evidence_check is not None  # text is still checked
    assert len(chat_server.chat_requests) == 3


def test_pairwise_and_group_refuse_what_they_would_not_show(chat_server: ChatServer) -> None:
    from rubricjudge._graders._group import GroupRanker
    from rubricjudge._graders._pairwise import PairwiseGrader

    judge = get_judge("openai/vision-test", base_url=chat_server.base_url, cache=False)
    picture = [{"type": "image", "data": B64(RED).decode()}]
    with pytest.raises(ConfigError, match="pairwise comparison does not send images"):
        PairwiseGrader(judge).compare_sync(rubric(), picture, "text")
    with pytest.raises(ConfigError, match="group ranking does not send images"):
        GroupRanker(judge).rank_sync(rubric(), ["text", picture])
    assert not chat_server.chat_requests


def test_the_batch_api_carries_the_images(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rubricjudge._runs._batch_run import BatchOptions
    from rubricjudge._runs._evaluate import evaluate_sync
    from tests.support.batch_server import BatchServer

    monkeypatch.setenv("RUBRICJUDGE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    ds = RubricDataset(prompt="Draw", rubric=rubric())
    ds.add_item([{"role": "user", "content": "Draw"}, {"role": "assistant", "content": [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64," + B64(RED).decode()}}
    ]}], id="red")  # fmt: skip
    with BatchServer() as server:
        grader = CriterionGrader(
            "openai/gpt-4.1-mini", judge_options={"base_url": server.base_url}, evidence="off"
        )
        result = evaluate_sync(ds, grader, run_dir=tmp_path / "run", batch_api=BatchOptions(0.01))
        assert result.summary.items_graded == 1
        rows = [
            json.loads(r) for c in server.contents.values() for r in c.splitlines() if r.strip()
        ]
    (line,) = [row for row in rows if "body" in row]  # the one request uploaded
    parts = line["body"]["messages"][1]["content"]
    assert [p["type"] for p in parts] == ["text", "text", "image_url", "text"]
    assert parts[2]["image_url"]["url"] == "data:image/png;base64," + B64(RED).decode()


def test_evaluate_resume_refuses_a_dataset_whose_image_changed(pictures: Path) -> None:
    from rubricjudge._runs._evaluate import evaluate_sync

    picture = pictures / "img" / "mine.png"
    picture.write_bytes(RED)
    ds_file = pictures / "d.json"
    item = {"id": "a", "submission": [{"type": "image", "path": "img/mine.png"}]}
    ds_file.write_text(json.dumps({"prompt": "p", "rubric": rubric().to_dict(), "items": [item]}))
    run = pictures / "run"
    evaluate_sync(RubricDataset.from_file(ds_file), CriterionGrader("fake"), run_dir=run)
    evaluate_sync(
        RubricDataset.from_file(ds_file), CriterionGrader("fake"), run_dir=run, resume=True
    )
    picture.write_bytes(BLUE)
    with pytest.raises(Exception, match="different dataset"):
        evaluate_sync(
            RubricDataset.from_file(ds_file), CriterionGrader("fake"), run_dir=run, resume=True
        )


def test_a_reference_with_an_image_is_shown_before_the_submission_s(
    chat_server: ChatServer, pictures: Path
) -> None:
    chat_server.handler = vision
    ds_file = pictures / "d.jsonl"
    header = {"prompt": "Draw", "rubric": rubric().to_dict()}
    item = {
        "id": "a",
        "submission": [{"type": "image", "path": "img/red.png"}],
        "reference_submission": [
            {"type": "text", "text": "A good one:"},
            {"type": "image", "path": "img/blue.png"},
        ],
    }
    ds_file.write_text(json.dumps(header) + "\n" + json.dumps(item) + "\n")
    ds = RubricDataset.from_file(ds_file)
    again = RubricDataset.from_jsonl(ds.to_jsonl())  # written with the bytes inline
    assert again.items[0].reference_submission == ds.items[0].reference_submission
    from rubricjudge._runs._evaluate import evaluate_sync

    judge = get_judge("openai/vision-test", base_url=chat_server.base_url, cache=False)
    evaluate_sync(ds, CriterionGrader(judge, evidence="off"))
    content = chat_server.chat_requests[0].json["messages"][1]["content"]
    assert [p["type"] for p in content] == [
        "text",
        "text",
        "image_url",
        "text",
        "image_url",
        "text",
    ]
    assert "A good one:\n[reference image 1]" in content[0]["text"]
    assert content[1]["text"].startswith("[reference image 1] blue.png, PNG 4x3")
    assert content[3]["text"].startswith("[image 1] red.png, PNG 4x3")
    assert [colour_of(content[k]["image_url"]["url"]) for k in (2, 4)] == ["blue", "red"]


@pytest.mark.skipif(HAS_LITELLM, reason="the real litellm is installed")
async def test_litellm_gets_openai_content_parts(stand_in: Any) -> None:
    from rubricjudge._judges._base import JudgeRequest
    from rubricjudge._judges._litellm import LiteLLMJudge

    stand_in.SCRIPT[:] = [litellm_reply('{"answer": "yes"}')]
    part = to_submission([{"type": "image", "data": B64(RED).decode()}]).media
    request = JudgeRequest(
        system="S", user="HEAD|TAIL", schema={}, shared_prefix_chars=5, media=part
    )
    await LiteLLMJudge("gemini/gemini-2.0-flash", JudgeConfig()).judge(request)
    (call,) = stand_in.CALLS
    assert call["messages"][1]["content"] == [
        {"type": "text", "text": "HEAD|"},
        {"type": "text", "text": f"[image 1] PNG 4x3, {len(RED)} bytes:"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64," + B64(RED).decode()}},
        {"type": "text", "text": "TAIL"},
    ]


def test_urls_are_fetched_only_when_allowed(
    pictures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(pictures / "img"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/red.png"
        part = [{"type": "image", "url": url}]
        with pytest.raises(ConfigError, match="is not fetched"):
            to_submission(part)
        monkeypatch.setenv("RUBRICJUDGE_ALLOW_URLS", "1")
        (got,) = to_submission(part).media
        assert got.data == RED and got.name == url
        with pytest.raises(ConfigError, match=r"cannot fetch .*/missing\.png"):
            to_submission([{"type": "image", "url": url.replace("red", "missing")}])
    finally:
        server.shutdown()
        server.server_close()


def test_the_server_and_rewards_read_no_files_but_keep_the_bytes(pictures: Path) -> None:
    from rubricjudge._errors import ConversationError
    from rubricjudge._rewards._reward import _to_grade
    from rubricjudge._server._models import BatchItem

    secret = str(pictures / "img" / "red.png")  # a file on the server's disk
    by_path = [{"role": "user", "content": [{"type": "image", "path": secret}]}]
    with pytest.raises(ConversationError, match="files are not read here"):
        BatchItem(messages=by_path).to_grade()
    url = "data:image/png;base64," + B64(RED).decode()
    inline = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}]
    sub = BatchItem(messages=inline).to_grade()
    assert [p.data for p in sub.media] == [RED]  # sent on to the judge, not dropped
    answer = [{"role": "assistant", "content": [{"type": "image", "path": secret}]}]
    with pytest.raises(ConfigError, match="files are not read here"):
        _to_grade(0, "Draw", answer)
    drawn = [{"role": "assistant", "content": inline[0]["content"]}]
    graded, _ = _to_grade(0, "Draw", drawn)
    assert [p.data for p in graded.media] == [RED]
