"""The HTTP probe's cases against the aiohttp path: each once broke the hand-written client."""

from __future__ import annotations

import base64
import gzip
from typing import Any

import pytest

from rubricjudge import ConfigError, JudgeError
from rubricjudge._judges._http import MAX_REPLY_BYTES, Endpoint
from rubricjudge._judges._registry import get_judge
from tests.support.raw_server import RawConnection, RawServer, completion, ok_json

VERDICT = {"verdict": "MET"}


async def test_a_gzip_bomb_is_refused_without_being_inflated_whole() -> None:
    bomb = gzip.compress(b"\0" * (MAX_REPLY_BYTES + 1024 * 1024), compresslevel=9)
    assert len(bomb) < 200_000

    async def send(conn: RawConnection) -> None:
        await conn.read_request()
        head = f"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: {len(bomb)}\r\n\r\n"
        await conn.send(head.encode() + bomb)

    async with RawServer(send) as server:
        with pytest.raises(JudgeError, match="larger than 32 MiB") as info:
            await Endpoint(server.url + "/x", {}).post(b"{}", timeout_s=30)
    assert info.value.category == "server"


async def test_a_chunk_declared_a_terabyte_long_is_not_waited_for_or_buffered() -> None:
    async def huge(conn: RawConnection) -> None:
        await conn.read_request()
        await conn.send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10000000000\r\n")
        await conn.send(b"x" * 1000)  # then the server goes away

    async with RawServer(huge) as server:
        with pytest.raises(JudgeError) as info:
            await Endpoint(server.url + "/x", {}).post(b"{}", timeout_s=10)
    assert info.value.category in ("connection", "server")


@pytest.mark.parametrize(
    "status_line", [b"HTTP/1.1 \xc2\xb200 OK", b"HTTP/1.1 2000 OK", b"NOT HTTP AT ALL"]
)
async def test_a_malformed_status_line_is_a_connection_error(status_line: bytes) -> None:
    async def bad(conn: RawConnection) -> None:
        await conn.read_request()
        await conn.send(status_line + b"\r\nContent-Length: 2\r\n\r\n{}")

    async with RawServer(bad) as server:
        with pytest.raises(JudgeError) as info:
            await Endpoint(server.url + "/x", {}).post(b"{}", timeout_s=10)
    assert info.value.category == "connection"


async def test_a_redirect_keeping_the_method_is_followed() -> None:
    async def moved(conn: RawConnection) -> None:
        while (req := await conn.read_request()) is not None:
            if req.line.startswith("POST /v1/old"):
                head = b"HTTP/1.1 307 Temporary Redirect\r\nLocation: /v1/new\r\n"
                await conn.send(head + b"Content-Length: 0\r\n\r\n")
            else:
                await conn.send(ok_json(completion(VERDICT)))

    async with RawServer(moved) as server:
        reply = await Endpoint(server.url + "/old", {}).post(b'{"a": 1}', timeout_s=10)
        assert reply.status == 200
        assert [r.line.split()[1] for r in server.requests] == ["/v1/old", "/v1/new"]
        assert server.requests[1].body == b'{"a": 1}'  # 307 keeps the method and body


@pytest.mark.parametrize("status", [301, 302, 303])
async def test_a_redirect_that_turns_the_post_into_a_get_is_refused(status: int) -> None:
    # issue 23, N8: aiohttp followed it as a GET with no prompt, and the reply counted
    async def moved(conn: RawConnection) -> None:
        while (req := await conn.read_request()) is not None:
            if req.line.startswith("POST"):
                head = f"HTTP/1.1 {status} Moved\r\nLocation: /v1/new\r\n".encode()
                await conn.send(head + b"Content-Length: 0\r\n\r\n")
            else:
                await conn.send(ok_json(completion(VERDICT)))

    async with RawServer(moved) as server:
        judge = get_judge("openai/m", base_url=server.url, cache=False, max_retries=0)
        with pytest.raises(JudgeError, match=rf"redirects \(HTTP {status}\) to /v1/new") as e:
            await judge.judge(_request())  # type: ignore[attr-defined]
        assert e.value.category == "bad_request"
        assert [r.line.split()[0] for r in server.requests] == ["POST"]  # no GET followed


async def test_a_redirect_to_another_host_is_refused() -> None:
    async def elsewhere(conn: RawConnection) -> None:
        await conn.read_request()
        head = b"HTTP/1.1 307 Temporary Redirect\r\nLocation: http://example.invalid/v1\r\n"
        await conn.send(head + b"Content-Length: 0\r\n\r\n")

    async with RawServer(elsewhere) as server:
        with pytest.raises(JudgeError, match="on another host") as e:
            await Endpoint(server.url + "/x", {"Authorization": "Bearer k"}).post(
                b"{}", timeout_s=10
            )
    assert e.value.category == "bad_request" and len(server.requests) == 1


async def test_spaces_in_a_base_url_are_encoded() -> None:
    async def ok(conn: RawConnection) -> None:
        await conn.read_request()
        await conn.send(ok_json(completion(VERDICT)))

    async with RawServer(ok) as server:
        judge = get_judge("openai/m", base_url=server.url + "/my models ", cache=False)
        await judge.judge(_request())  # type: ignore[attr-defined]
        assert server.requests[0].line.split()[1] == "/v1/my%20models/chat/completions"


async def test_credentials_in_a_base_url_become_basic_auth() -> None:
    async def ok(conn: RawConnection) -> None:
        await conn.read_request()
        await conn.send(ok_json(completion(VERDICT)))

    async with RawServer(ok) as server:
        url = server.url.replace("http://", "http://alice:s%3Dcret@")
        judge = get_judge("openai/m", base_url=url, cache=False)
        await judge.judge(_request())  # type: ignore[attr-defined]
        auth = server.requests[0].headers["authorization"]
        assert auth == "Basic " + base64.b64encode(b"alice:s=cret").decode()
    with pytest.raises(ConfigError, match="carries credentials"):
        Endpoint("http://u:p@127.0.0.1:1/v1", {"Authorization": "Bearer k"})


async def test_an_ipv6_host_reaches_the_proxy_in_brackets(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    async def proxy(conn: RawConnection) -> None:
        req = await conn.read_request()
        if req is not None:
            seen.append(req.line)
            await conn.send(ok_json(completion(VERDICT)))

    async with RawServer(proxy) as server:
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{server.port}")
        reply = await Endpoint("http://[2001:db8::1]:8080/v1/x", {}).post(b"{}", timeout_s=10)
    assert reply.status == 200
    assert seen == ["POST http://[2001:db8::1]:8080/v1/x HTTP/1.1"]


def _request() -> Any:
    from tests.support.judge_helpers import request

    return request()
