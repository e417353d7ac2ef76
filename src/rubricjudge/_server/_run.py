"""Running the scoring server: the authentication rule, the token file, uvicorn."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .._env import getenv
from .._errors import ConfigError, missing_extra
from .._judges._http_sessions import is_loopback
from ._app import create_app
from ._logs import log_config
from ._settings import ServerSettings

__all__ = [
    "MIN_TOKEN_LENGTH",
    "TOKEN_ENV",
    "auth_token",
    "is_loopback",
    "loopback_or_token",
    "read_token",
    "serve",
]

MIN_TOKEN_LENGTH = 16
TOKEN_ENV = "RUBRICJUDGE_SERVE_TOKEN"


def _check(token: str, where: str) -> str:
    if len(token) < MIN_TOKEN_LENGTH or any(c.isspace() for c in token):
        raise ConfigError(
            f"the token in {where} is too weak: use at least {MIN_TOKEN_LENGTH} characters "
            "without spaces (e.g. python -c 'import secrets; print(secrets.token_urlsafe(32))')"
        )
    return token


def read_token(path: str | os.PathLike[str]) -> str:
    """Read a bearer token from a file (surrounding whitespace ignored).

    Raises:
        ConfigError: the file is missing, empty or holds a weak token.
    """
    try:
        token = Path(path).read_text(encoding="utf-8").strip()
    except OSError as e:
        raise ConfigError(f"cannot read --token-file {os.fspath(path)!r}: {e.strerror}") from None
    return _check(token, f"--token-file {os.fspath(path)!r}")


def auth_token(host: str, *, token_file: str | None, no_auth: bool) -> str | None:
    """The token the server requires, or None when authentication is off.

    The token comes from ``token_file`` or ``$RUBRICJUDGE_SERVE_TOKEN``. Turning
    authentication off needs ``no_auth`` and a loopback ``host``.

    Raises:
        ConfigError: ``no_auth`` on a host reachable from elsewhere, ``no_auth`` with a
            token, or no token at all.
    """
    if no_auth:
        if token_file:
            raise ConfigError("--no-auth and --token-file contradict each other; give one")
        if not is_loopback(host):
            raise ConfigError(
                f"--no-auth is allowed only on a loopback host (127.0.0.1, ::1, localhost); "
                f"--host {host!r} is reachable from other machines, so give --token-file"
            )
        return None
    if token_file:
        return read_token(token_file)
    env = (getenv("SERVE_TOKEN") or "").strip()
    if env:
        return _check(env, f"${TOKEN_ENV}")
    raise ConfigError(
        f"the server needs a bearer token: give --token-file FILE or set ${TOKEN_ENV} "
        "(or, on a loopback host only, --no-auth)"
    )


def loopback_or_token(host: str, *, token_file: str | None, env: str) -> str | None:
    """The token a page served on ``host`` requires: optional on loopback, else required.

    The token comes from ``token_file`` or ``$RUBRICJUDGE_<env>``; on a loopback
    ``host`` no token means none is asked for (only this machine can connect).

    Raises:
        ConfigError: ``host`` is reachable from other machines and no token was given,
            or the token is weak.
    """
    if token_file:
        return read_token(token_file)
    value = (getenv(env) or "").strip()
    if value:
        return _check(value, f"$RUBRICJUDGE_{env}")
    if is_loopback(host):
        return None
    raise ConfigError(
        f"--host {host!r} is reachable from other machines, so the page needs a token: "
        f"give --token-file FILE or set $RUBRICJUDGE_{env} (or keep the default --host "
        "127.0.0.1)"
    )


def serve(
    settings: ServerSettings,
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    banner: str | None = None,
) -> None:
    """Run the server with uvicorn until interrupted.

    ``banner`` is printed on stderr once everything the server needs is there (the
    extra installed, the app built), so it never announces a server that then fails.
    """
    try:
        import uvicorn
    except ImportError:
        raise missing_extra("serve", "the scoring server needs starlette and uvicorn") from None
    if settings.token is None and not is_loopback(host):
        raise ConfigError(f"refusing to serve without a token on non-loopback host {host!r}")

    app = create_app(settings)
    if banner:
        print(banner, file=sys.stderr, flush=True)
    uvicorn.run(app, host=host, port=port, log_level="info", log_config=log_config())
