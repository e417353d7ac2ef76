"""One lifecycle for the local HTTP servers the tests talk to.

A subclass gives its request handler class (``request_handler``); ``start`` binds
a free port on 127.0.0.1 and serves in a daemon thread, ``close`` (or leaving the
``with`` block) stops it. ``base_url`` ends in the subclass's ``path``.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


class LocalServer:
    """A threaded HTTP server on a free local port, started and stopped in one way."""

    server_class: type[ThreadingHTTPServer] = ThreadingHTTPServer
    poll_interval = 0.02
    path = ""  # what base_url ends in ("/v1" for OpenAI-compatible servers)
    _httpd: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    def request_handler(self) -> type[BaseHTTPRequestHandler]:
        """The handler class, bound to this server's state."""
        raise NotImplementedError

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>`` and the server's path."""
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}{self.path}"

    def start(self) -> Self:
        """Bind a free port and serve in a daemon thread."""
        self._httpd = self.server_class(("127.0.0.1", 0), self.request_handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": self.poll_interval},
            daemon=True,
        )
        self._thread.start()
        return self

    def stopping(self) -> None:
        """Called first by :meth:`close` (e.g. to release requests held open)."""

    def close(self) -> None:
        """Stop serving and release the port."""
        self.stopping()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
