"""Serving the labelling page with uvicorn on a socket bound here (so port 0 works)."""

from __future__ import annotations

import socket

from .._errors import ConfigError, missing_extra
from ._app import LabelSettings, create_app

__all__ = ["bind", "loopback_hosts", "serve_labels"]


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port`` (0: any free port).

    Raises:
        ConfigError: the address cannot be bound (in use, or not this machine's).
    """
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as e:
        sock.close()
        raise ConfigError(
            f"cannot listen on --host {host} --port {port}: {e.strerror}; give another "
            "--port (0 picks a free one)"
        ) from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def loopback_hosts(host: str, port: int) -> set[str]:
    """The ``Host`` values a browser on this machine sends to this server."""
    names = {
        "127.0.0.1",
        "localhost",
        "[::1]",
        host if ":" not in host else f"[{host.strip('[]')}]",
    }
    return {f"{n}:{port}" for n in names}


def serve_labels(settings: LabelSettings, sock: socket.socket, url: str) -> None:
    """Serve on ``sock`` until interrupted, after printing ``url`` on stdout.

    The socket already listens, so a browser that opens the URL at once waits in the
    backlog until uvicorn accepts it.
    """
    try:
        import uvicorn
    except ImportError:
        raise missing_extra("label", "the labelling page needs starlette and uvicorn") from None
    config = uvicorn.Config(create_app(settings), log_level="warning", lifespan="off")
    print(url, flush=True)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
