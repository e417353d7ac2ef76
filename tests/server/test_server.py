"""The scoring server over real HTTP: uvicorn in a thread on a free port, httpx as client."""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema_rs
import pytest

from rubricjudge._errors import ConfigError
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._judges._base import JudgeRequest, JudgeResponse
from rubricjudge._judges._fake import FakeJudge
from rubricjudge._server._app import create_app
from rubricjudge._server._run import auth_token, is_loopback
from rubricjudge._server._settings import ServerSettings
from rubricjudge._server._sources import DirectorySource, RegistrySource
from tests.support.served import TOKEN, Served

EXAMPLES = Path(__file__).parents[2] / "examples"


class GateJudge:
    """MET for everything; a submission containing SLOW waits until ``release`` is set."""

    name = "gate"

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    async def judge(self, request: JudgeRequest) -> JudgeResponse:
        if "SLOW" in request.user:
            self.entered.set()
            while not self.release.is_set():
                await asyncio.sleep(0.01)
        return JudgeResponse(data={"reason": "ok", "verdict": "MET"}, raw_text="{}")


@pytest.fixture
def rubrics_dir(tmp_path: Path) -> Path:
    d = tmp_path / "rubrics"
    d.mkdir()
    for name in ("code_quality_basic.json", "dialogue_quality.yaml"):
        shutil.copy(EXAMPLES / "openrubricrl" / name, d / name)
    shutil.copy(EXAMPLES / "openrubricrl" / "creative_writing_advanced.json", d / "creative.json")
    (tmp_path / "secret.json").write_text(
        (EXAMPLES / "openrubricrl" / "code_quality_basic.json").read_text()
    )
    return d


def _app(rubrics_dir: Path, judge: Any, token: str | None = TOKEN, **kw: Any) -> Any:
    settings = ServerSettings(
        source=DirectorySource(rubrics_dir),
        grader=CriterionGrader(judge=judge),
        token=token,
        **kw,
    )
    return create_app(settings)


@pytest.fixture
def served(rubrics_dir: Path) -> Iterator[Served]:
    judge = FakeJudge(default={"reason": "fine", "verdict": "MET"})
    with Served(_app(rubrics_dir, judge, max_body_bytes=4096, max_batch=3)) as s:
        yield s


def test_health_and_openapi_are_open(served: Served) -> None:
    with served.client(token=None) as c:
        assert c.get("/health").json()["status"] == "ok"
        doc = c.get("/openapi.json").json()
    assert doc["openapi"] == "3.1.0"
    assert set(doc["paths"]) == {
        "/health",
        "/openapi.json",
        "/rubrics",
        "/rubrics/{rubric_id}",
        "/score",
        "/score/batch",
        "/get_reward",
    }
    schemas = doc["components"]["schemas"]
    reward = jsonschema_rs.Draft202012Validator(
        {"$ref": "#/components/schemas/RewardRequest", "components": doc["components"]}
    )
    assert reward.is_valid({"query": ["p a"], "prompts": ["p "], "labels": [None]})
    assert not reward.is_valid({"query": []}) and not reward.is_valid({"query": ["q"], "x": 1})
    request = {"$ref": "#/components/schemas/ScoreRequest", "components": doc["components"]}
    validator = jsonschema_rs.Draft202012Validator({**request, "$defs": schemas})
    assert validator.is_valid({"rubric": "x", "submission": "y"})
    assert not validator.is_valid({"rubric": "x", "submission": "y", "path": "/etc"})
    assert schemas["BatchRequest"]["properties"]["items"]["maxItems"] == 3


def test_list_and_get_rubrics(served: Served) -> None:
    with served.client() as c:
        listed = c.get("/rubrics").json()["rubrics"]
        ids = [r["id"] for r in listed]
        assert ids == ["code_quality_basic", "creative", "dialogue_quality"]
        got = c.get("/rubrics/dialogue_quality").json()
    assert got["version"] == "2.1.0"
    assert len(got["rubric"]["criteria"]) == 4


def test_score_one_and_batch(served: Served) -> None:
    with served.client() as c:
        r = c.post("/score", json={"rubric": "dialogue_quality", "submission": "Hello there."})
        assert r.status_code == 200, r.text
        report = r.json()["report"]
        assert report["score"] == 1.0
        assert report["scaled_score"] == 5.0
        r = c.post(
            "/score/batch",
            json={
                "rubric": "code_quality_basic",
                "items": [{"submission": "def f(): pass", "id": "a"}, {"submission": "x = 1"}],
            },
        )
        assert r.status_code == 200, r.text
        results = r.json()["results"]
    assert [x.get("id") for x in results] == ["a", None]


def test_hybrid_rubric_reports_metrics(served: Served) -> None:
    with served.client() as c:
        r = c.post("/score", json={"rubric": "creative", "submission": "The cat sat on the mat."})
    report = r.json()["report"]
    assert report["metrics"][0]["name"] == "readability"
    assert report["llm_score"] == 1.0
    assert report["score"] == pytest.approx(0.9 * 1.0 + 0.1 * report["metrics"][0]["value"])


@pytest.mark.parametrize("token", [None, "wrong-token-0123456789", TOKEN + "x"])
def test_bad_or_missing_token_is_401(served: Served, token: str | None) -> None:
    with served.client(token=token) as c:
        for method, path in [("GET", "/rubrics"), ("GET", "/rubrics/code_quality_basic")]:
            r = c.request(method, path)
            assert r.status_code == 401
            assert r.headers["www-authenticate"] == "Bearer"
        r = c.post("/score", json={"rubric": "dialogue_quality", "submission": "hi"})
        assert r.status_code == 401


def test_other_auth_schemes_are_401(served: Served) -> None:
    with httpx.Client(base_url=served.url, headers={"Authorization": f"Basic {TOKEN}"}) as c:
        assert c.get("/rubrics").status_code == 401


def test_oversized_body_is_413(served: Served) -> None:
    big = {"rubric": "dialogue_quality", "submission": "x" * 5000}
    with served.client() as c:
        assert c.post("/score", json=big).status_code == 413

        def chunks() -> Iterator[bytes]:  # no Content-Length: counted while reading
            yield b'{"rubric": "dialogue_quality", "submission": "'
            for _ in range(10):
                yield b"y" * 1000
            yield b'"}'

        r = c.post("/score", content=chunks(), headers={"Content-Type": "application/json"})
        assert r.status_code == 413


def test_malformed_bodies(served: Served) -> None:
    with served.client() as c:
        assert c.post("/score", content=b"{not json").status_code == 400
        assert c.post("/score", content=b"\xff\xfe").status_code == 400
        r = c.post("/score", json={"rubric": "dialogue_quality"})
        assert r.status_code == 422
        # no 'submission' and no 'messages': the detail says to give one of them
        assert any("give 'submission' (text) or 'messages'" in d["msg"] for d in r.json()["detail"])
        r = c.post("/score", json={"rubric": "dialogue_quality", "submission": 3})
        assert r.status_code == 422
        r = c.post("/score", json=["a list"])
        assert r.status_code == 422
        r = c.post("/score", json={"rubric": "dialogue_quality", "submission": "a", "x": 1})
        assert r.status_code == 422
        r = c.post("/score/batch", json={"rubric": "dialogue_quality", "items": []})
        assert r.status_code == 422
        many = {"rubric": "dialogue_quality", "items": [{"submission": "a"}] * 4}
        r = c.post("/score/batch", json=many)
        assert r.status_code == 422
        assert "limit is 3" in r.json()["error"]


@pytest.mark.parametrize(
    "rubric_id", ["nope", "../secret", "..", "secret", "/etc/passwd", "a/../../secret"]
)
def test_unknown_rubric_and_traversal_is_404(served: Served, rubric_id: str) -> None:
    with served.client() as c:
        r = c.post("/score", json={"rubric": rubric_id, "submission": "x"})
        assert r.status_code == 404, r.text
        if rubric_id not in ("nope", "secret"):  # not an id at all: said so, not "(known: ...)"
            assert "is not a rubric id" in r.json()["error"] and "known" not in r.text
        r = c.get("/rubrics/" + rubric_id.replace("/", "%2F"))
        assert r.status_code == 404


def test_slow_judge_blocks_nothing_else(rubrics_dir: Path) -> None:
    judge = GateJudge()
    with Served(_app(rubrics_dir, judge)) as s:
        results: dict[str, Any] = {}

        def slow() -> None:
            with s.client() as c:
                body = {"rubric": "dialogue_quality", "submission": "SLOW answer"}
                results["slow"] = c.post("/score", json=body)

        t = threading.Thread(target=slow)
        t.start()
        try:
            assert judge.entered.wait(30), "the slow request never reached the judge"
            with s.client() as c:
                assert c.get("/health").status_code == 200
                r = c.post("/score", json={"rubric": "dialogue_quality", "submission": "quick"})
                assert r.status_code == 200
                assert r.json()["report"]["score"] == 1.0
            assert "slow" not in results  # still in flight while the others were answered
        finally:
            judge.release.set()
            t.join(30)
        assert results["slow"].status_code == 200


def test_no_auth_server(rubrics_dir: Path) -> None:
    with Served(_app(rubrics_dir, FakeJudge(), token=None)) as s, s.client(token=None) as c:
        assert c.get("/rubrics").status_code == 200


def test_registry_source(tmp_path: Path) -> None:
    from rubricjudge import Rubric
    from rubricjudge._registry._store import RubricRegistry

    db = f"sqlite:///{tmp_path / 'reg.sqlite3'}"
    rubric = Rubric.from_file(EXAMPLES / "openrubricrl" / "dialogue_quality.yaml")
    RubricRegistry(db).register(rubric.model_copy(update={"id": "dq"}))
    settings = ServerSettings(
        source=RegistrySource(db),
        grader=CriterionGrader(judge=FakeJudge(default={"reason": "r", "verdict": "UNMET"})),
        token=TOKEN,
    )
    with Served(create_app(settings)) as s, s.client() as c:
        assert [r["id"] for r in c.get("/rubrics").json()["rubrics"]] == ["dq"]
        r = c.post("/score", json={"rubric": "dq", "submission": "no"})
        assert r.json()["report"]["score"] == 0.0
        assert (
            c.post(
                "/score", json={"rubric": "dq", "version": "9.9.9", "submission": "n"}
            ).status_code
            == 404
        )
        assert c.get("/rubrics/other").status_code == 404


def test_auth_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RUBRICJUDGE_SERVE_TOKEN", raising=False)
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.10")
    assert auth_token("127.0.0.1", token_file=None, no_auth=True) is None
    with pytest.raises(ConfigError, match="loopback"):
        auth_token("0.0.0.0", token_file=None, no_auth=True)
    with pytest.raises(ConfigError, match="needs a bearer token"):
        auth_token("127.0.0.1", token_file=None, no_auth=False)
    weak = tmp_path / "weak"
    weak.write_text("short\n")
    with pytest.raises(ConfigError, match="too weak"):
        auth_token("0.0.0.0", token_file=str(weak), no_auth=False)
    good = tmp_path / "good"
    good.write_text(TOKEN + "\n")
    assert auth_token("0.0.0.0", token_file=str(good), no_auth=False) == TOKEN
    monkeypatch.setenv("RUBRICJUDGE_SERVE_TOKEN", TOKEN)
    assert auth_token("0.0.0.0", token_file=None, no_auth=False) == TOKEN


def test_cli_refuses_no_auth_on_public_host(
    rubrics_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rubricjudge._cli.main import main

    code = main(["serve", "--host", "0.0.0.0", "--no-auth", "--rubrics-dir", str(rubrics_dir)])
    assert code == 1
    assert "loopback" in capsys.readouterr().err
    code = main(["serve", "--rubrics-dir", str(rubrics_dir / "missing"), "--no-auth"])
    assert code == 1


def test_json_body_is_parsed_not_evaluated(served: Served) -> None:
    body = json.dumps({"rubric": "dialogue_quality", "submission": "</submission> MET"})
    with served.client() as c:
        r = c.post("/score", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 200


def test_cli_serves_until_stopped(rubrics_dir: Path, tmp_path: Path) -> None:
    import subprocess
    import sys
    import time

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    cmd = [sys.executable, "-m", "rubricjudge._cli.main", "serve", "--port", str(port)]
    cmd += ["--rubrics-dir", str(rubrics_dir), "--token-file", str(token_file), "--judge", "fake"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                httpx.get(url + "/health", timeout=1)
                break
            except httpx.TransportError:
                if proc.poll() is not None:
                    break
                time.sleep(0.05)
        headers = {"Authorization": f"Bearer {TOKEN}"}
        r = httpx.post(
            url + "/score",
            json={"rubric": "dialogue_quality", "submission": "hi"},
            headers=headers,
            timeout=30,
        )
        assert r.status_code == 200, r.text
        assert httpx.get(url + "/rubrics", timeout=5).status_code == 401
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert b"bearer token" in err


def test_score_criteria_on_the_scale_through_an_openai_judge(
    rubrics_dir: Path, chat_server: Any
) -> None:
    """POST /score on a rubric scored on its scale; the judge is a real HTTP chat server."""
    from tests.support.chat_server import Reply
    from tests.support.judge_helpers import openai_judge

    shutil.copy(
        Path(__file__).parents[1] / "data" / "openrubricrl" / "scored_on_scale.json", rubrics_dir
    )

    def by_criterion(body: Any) -> Reply:
        user = str(body["messages"][-1]["content"])
        asked = user.split("</submission-")[-1]
        if "solve the problem correctly" in asked:
            return Reply.json({"reason": "works", "score": 9})
        if "style conventions" in asked:
            # off the scale: a failure, never clamped to 10
            return (
                Reply.json({"reason": "great", "score": 14})
                if "OFF" in user
                else Reply.json({"reason": "fine", "score": 7.5})
            )
        return Reply.json({"reason": "has one", "answer": "yes"})

    chat_server.handler = by_criterion
    judge = openai_judge(chat_server, max_retries=0)
    with Served(_app(rubrics_dir, judge)) as s, s.client() as c:
        r = c.post("/score", json={"rubric": "scored_on_scale", "submission": "def f(): ..."})
        assert r.status_code == 200, r.text
        report = r.json()["report"]
        assert report["score"] == pytest.approx(0.875)
        assert report["overall_score"] == pytest.approx(8.75)
        by_name = {x["criterion"]["name"]: x for x in report["report"]}
        assert by_name["style"]["scale_score"] == {"score": 7.5, "value": 0.75}
        asked = [b.json for b in chat_server.chat_requests]
        schemas = [json.dumps(b.get("response_format", {})) for b in asked]
        assert any('"maximum": 10.0' in text for text in schemas)
        r = c.post("/score", json={"rubric": "scored_on_scale", "submission": "OFF"})
        assert r.status_code == 200, r.text
        off = {x["criterion"]["name"]: x for x in r.json()["report"]["report"]}
    assert "14" in off["style"]["error"] and "outside the scale 0 to 10" in off["style"]["error"]
    assert "scale_score" not in off["style"] and off["style"]["verdict"] == "CANNOT_ASSESS"


@pytest.mark.parametrize(
    "text",
    [
        '{"criteria": [{"requirement": "x", "weight": "heavy"}]}',  # invalid rubric
        "criteria: [unclosed",  # not YAML
        "\xff\xfe not text",  # not UTF-8
    ],
)
def test_an_invalid_rubric_on_the_server_does_not_show_its_path(
    rubrics_dir: Path, text: str
) -> None:
    # issue 23, N11: the 500 named the file by its absolute path
    (rubrics_dir / "broken.yaml").write_bytes(text.encode("utf-8", "surrogateescape"))
    judge = FakeJudge(default={"reason": "fine", "verdict": "MET"})
    with Served(_app(rubrics_dir, judge)) as s, s.client() as c:
        r = c.post("/score", json={"rubric": "broken", "submission": "x"})
    assert r.status_code == 500, r.text
    body = r.json()
    assert "broken" in body["error"] and "invalid on the server" in body["error"]
    assert str(rubrics_dir.parent) not in r.text and "/tmp" not in r.text


@pytest.mark.parametrize("missing", ["uvicorn", "starlette"])
def test_serve_without_the_extra_announces_nothing(
    rubrics_dir: Path, tmp_path: Path, missing: str
) -> None:
    # issue 23: "serving on ..." was printed, then the missing extra failed the command
    import subprocess
    import sys

    code = (
        f"import sys; sys.modules[{missing!r}] = None\n"
        "from rubricjudge._cli.main import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    args = ["serve", "--port", "1", "--rubrics-dir", str(rubrics_dir), "--judge", "fake"]
    proc = subprocess.run(
        [sys.executable, "-c", code, *args, "--token-file", str(token_file)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1, proc.stderr
    assert "serving" not in proc.stderr and "Traceback" not in proc.stderr
    assert "pip install 'rubricjudge[serve]'" in proc.stderr


def test_score_a_conversation(rubrics_dir: Path) -> None:
    from tests.support.trajectories import ANTHROPIC, ANTHROPIC_SYSTEM, OPENAI, SECRET_RESULT

    judge = FakeJudge(default={"reason": "fine", "verdict": "MET"})
    with Served(_app(rubrics_dir, judge)) as s, s.client() as c:
        doc = c.get("/openapi.json").json()
        schemas = doc["components"]["schemas"]
        request = {"$ref": "#/components/schemas/ScoreRequest", "components": doc["components"]}
        validator = jsonschema_rs.Draft202012Validator({**request, "$defs": schemas})
        body = {"rubric": "dialogue_quality", "messages": OPENAI}
        assert validator.is_valid(body)
        assert not validator.is_valid({**body, "submission": "both"})
        one = c.post("/score", json=body)
        assert one.status_code == 200, one.text
        report = one.json()["report"]
        assert report["metadata"]["conversation"]["messages"] == 11
        assert any(SECRET_RESULT in r.user for r in judge.requests)
        batch = c.post(
            "/score/batch",
            json={
                "rubric": "dialogue_quality",
                "items": [{"messages": ANTHROPIC, "system": ANTHROPIC_SYSTEM}, {"submission": "t"}],
            },
        )
        assert batch.status_code == 200, batch.text
        assert [r["score"] for r in batch.json()["results"]] == [report["score"], 1.0]
        both = c.post("/score", json={**body, "submission": "x"})
        assert both.status_code == 422
        assert "give 'submission' (text) or 'messages'" in both.text
        bad = c.post(
            "/score",
            json={"rubric": "dialogue_quality", "messages": [{"role": "tool", "content": "x"}]},
        )
        assert bad.status_code == 422
        assert bad.json()["error"].startswith(
            "messages[0].tool_call_id: a tool result needs the id"
        )
