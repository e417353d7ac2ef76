"""What the driver's environment gives Ray workers (issue 23, N9): only what judges read.

Every ``RUBRICATE_*``/``OPENAI_*``/``ANTHROPIC_*`` variable went to the actors,
the serve token and a registry URL with its password included. Runs without Ray:
the set is decided on the driver.
"""

from __future__ import annotations

import os

import pytest

from rubricjudge import GraderSpec
from rubricjudge._cli.main import main
from rubricjudge._graders._ensemble import JudgeSpec
from rubricjudge._ray._setup import forwarded_env, judge_backends

ENV = {
    "OPENAI_API_KEY": "sk-openai",
    "OPENAI_BASE_URL": "http://gpu:8000/v1",
    "OPENAI_ORG_SECRET": "not read by any judge",
    "ANTHROPIC_API_KEY": "sk-ant",
    "GEMINI_API_KEY": "g-key",
    "RUBRICJUDGE_CACHE_DIR": "/cache",
    "RUBRICJUDGE_SERVE_TOKEN": "serve-secret",
    "RUBRICJUDGE_REGISTRY": "postgresql://alice:pw@db/rubrics",
    "RUBRICATE_REGISTRY": "postgresql://alice:pw@db/old",
    "HTTPS_PROXY": "http://proxy:3128",
    "SSL_CERT_FILE": "/etc/ca.pem",
    "HOME": "/root",
}


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for k in list(os.environ):  # only ENV, whatever this machine sets
        if k not in ("PATH", "PYTHONPATH"):
            monkeypatch.delenv(k)
    for k, v in ENV.items():
        monkeypatch.setenv(k, v)


def test_an_openai_judge_gets_its_key_and_url_and_nothing_secret_else() -> None:
    got = forwarded_env(judge_backends(GraderSpec(judge="openai/gpt-4.1-mini")))
    assert got == {
        "OPENAI_API_KEY": "sk-openai",
        "OPENAI_BASE_URL": "http://gpu:8000/v1",
        "RUBRICJUDGE_CACHE_DIR": "/cache",
        "HTTPS_PROXY": "http://proxy:3128",
        "SSL_CERT_FILE": "/etc/ca.pem",
    }


def test_each_backend_of_a_grader_gets_its_own() -> None:
    spec = GraderSpec(
        judges=["anthropic/claude-sonnet-4-5", JudgeSpec("litellm/gemini/gemini-2.0", weight=2)],
        options={"escalate_to": "openai/gpt-4.1"},
    )
    assert judge_backends(spec) == {"anthropic", "litellm", "openai"}
    got = forwarded_env(judge_backends(spec))
    assert {"ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY"} <= set(got)
    assert not {"RUBRICJUDGE_SERVE_TOKEN", "RUBRICJUDGE_REGISTRY", "RUBRICATE_REGISTRY"} & set(got)
    assert "HOME" not in got and "OPENAI_ORG_SECRET" not in got


def test_a_local_judge_gets_no_key_and_extra_names_are_added() -> None:
    local = forwarded_env(judge_backends(GraderSpec(judge="local")))
    assert set(local) == {"RUBRICJUDGE_CACHE_DIR", "HTTPS_PROXY", "SSL_CERT_FILE"}
    extra = forwarded_env({"local"}, ["OPENAI_ORG_SECRET", "UNSET_NAME"])
    assert extra["OPENAI_ORG_SECRET"] == "not read by any judge" and "UNSET_NAME" not in extra


def test_the_cli_switches_need_the_ray_executor(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["evaluate", "example:llm_rubric_microsoft", "--judge", "fake", "--max-items", "1"]
    assert main([*base, "--ray-env", "none"]) == 1
    assert "--ray-env and --ray-env-var need --executor ray" in capsys.readouterr().err
    assert main([*base, "--ray-env-var", "X"]) == 1
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    assert "--ray-env {judge,none}" in capsys.readouterr().out
