"""A scoring server running for real: uvicorn in a thread on a free port, httpx as client."""

from __future__ import annotations

import socket
import threading
from typing import Any

import httpx
import uvicorn

TOKEN = "test-token-0123456789abcdef"


class Served:
    """A running server: its base URL and a client."""

    def __init__(self, app: Any) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        config = uvicorn.Config(
            app, host="127.0.0.1", port=self.port, log_level="error", lifespan="off", ws="none"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.url = f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Served:
        self.thread.start()
        for _ in range(500):
            if self.server.started:
                break
            self.thread.join(0.01)
        assert self.server.started, "uvicorn did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)

    def client(self, token: str | None = TOKEN) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)
