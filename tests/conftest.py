"""Shared pytest fixtures."""

# How the tests import: tests/ and each folder in it are packages (an __init__.py each), so
# pytest's default importmode ("prepend") puts the repository root on sys.path and imports a
# test file by its dotted path (tests.graders.test_graders_cli). Two test files may then
# share a basename, and helpers are imported as `from tests.support.chat_server import ...`.
# Plain folders on sys.path would not do: tests/datasets/ or tests/ray/ would stand in for
# the real `datasets` or `ray` wherever that package is not installed.
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.chat_server import ChatServer


@pytest.fixture
def chat_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    """A scripted OpenAI chat-completions server on 127.0.0.1 (see ``support/chat_server.py``).

    The judge response cache is moved into ``tmp_path`` so no test touches ``~/.cache``.
    """
    monkeypatch.setenv("RUBRICJUDGE_CACHE_DIR", str(tmp_path / "judge-cache"))
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with ChatServer() as server:
        yield server
