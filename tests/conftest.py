"""Shared pytest fixtures."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from chat_server import ChatServer


@pytest.fixture
def chat_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    """A scripted OpenAI chat-completions server on 127.0.0.1 (see ``chat_server.py``).

    The judge response cache is moved into ``tmp_path`` so no test touches ``~/.cache``.
    """
    monkeypatch.setenv("RUBRICJUDGE_CACHE_DIR", str(tmp_path / "judge-cache"))
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with ChatServer() as server:
        yield server
