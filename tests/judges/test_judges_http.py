"""The judges' HTTP client over real sockets: keep-alive, idle closes, framing, TLS, proxies."""

from __future__ import annotations

import asyncio
import base64
import gzip
import json
import socket
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme

from rubricjudge._errors import ConfigError, JudgeError
from rubricjudge._judges import _http_sessions
from rubricjudge._judges._http import Endpoint
from rubricjudge._judges._registry import get_judge
from tests.support.judge_helpers import request
from tests.support.raw_server import RawConnection, RawServer, completion, ok_json

VERDICT = completion({"verdict": "MET", "reason": "ok"})


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "SSL_CERT_FILE"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    _http_sessions._ssl_context.cache_clear()  # the TLS context is built anew from this env
    yield
    _http_sessions._ssl_context.cache_clear()  # and no test CA outlives its test


def judge(url: str, **options: object) -> object:
    opts: dict[str, object] = {"base_url": url, "cache": False, "max_retries": 0}
    opts.update(options)
    return get_judge("openai/m", **opts)


async def keep_alive(conn: RawConnection) -> None:
    while await conn.read_request() is not None:
        await conn.send(ok_json(VERDICT))


async def test_calls_share_one_keep_alive_connection() -> None:
    async with RawServer(keep_alive) as server:
        endpoint = Endpoint(server.url + "/chat/completions", {"Authorization": "Bearer k"})
        for _ in range(3):
            reply = await endpoint.post(b'{"x": 1}', timeout_s=5)
            assert reply.status == 200 and reply.json() == VERDICT
        assert server.connections == 1 and len(server.requests) == 3
        sent = server.requests[0]
        assert sent.line == "POST /v1/chat/completions HTTP/1.1"
        assert sent.headers["host"] == f"127.0.0.1:{server.port}"
        assert sent.headers["authorization"] == "Bearer k"
        assert sent.headers["user-agent"].startswith("rubricjudge/")
        assert sent.body == b'{"x": 1}'


async def test_an_idle_connection_the_server_dropped_is_replaced_once() -> None:
    async def one_per_connection(conn: RawConnection) -> None:
        await conn.read_request()
        await conn.send(ok_json(VERDICT))  # keep-alive promised...
        await conn.read_request()  # ...but the next request is read and dropped unanswered

    async with RawServer(one_per_connection) as server:
        endpoint = Endpoint(server.url + "/chat/completions", {})
        for _ in range(3):
            assert (await endpoint.post(b"{}", timeout_s=5)).status == 200
        # every call after the first was written on a dead connection, then sent anew
        assert server.connections == 3 and len(server.requests) == 5


async def test_bytes_after_a_reply_retire_the_connection() -> None:
    async def chatty(conn: RawConnection) -> None:
        while await conn.read_request() is not None:
            await conn.send(ok_json(VERDICT))
            await asyncio.sleep(0.02)
            await conn.send(b"HTTP/1.1 200 OK\r\n")  # a reply nobody asked for

    async with RawServer(chatty) as server:
        endpoint = Endpoint(server.url + "/chat/completions", {})
        assert (await endpoint.post(b"{}", timeout_s=5)).json() == VERDICT
        await asyncio.sleep(0.1)
        # the stray bytes never pass for the second reply
        assert (await endpoint.post(b"{}", timeout_s=5)).json() == VERDICT
        assert len(server.requests) == 2


async def test_a_fresh_connection_dropped_without_reply_is_not_resent() -> None:
    async def drop(conn: RawConnection) -> None:
        await conn.read_request()

    async with RawServer(drop) as server:
        with pytest.raises(JudgeError, match="closed the connection without replying") as info:
            await judge(server.url).judge(request())  # type: ignore[attr-defined]
        assert info.value.category == "connection"
        assert len(server.requests) == 1  # retrying is the reliability layer's call


async def test_chunked_gzip_reply_through_the_judge() -> None:
    async def chunked(conn: RawConnection) -> None:
        await conn.read_request()
        body = gzip.compress(json.dumps(VERDICT).encode())
        half = len(body) // 2
        head = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n"
        await conn.send(head + b"%x\r\n%s\r\n" % (half, body[:half]))
        await asyncio.sleep(0.01)
        rest = body[half:]
        await conn.send(b"%x\r\n%s\r\n0\r\n\r\n" % (len(rest), rest))

    async with RawServer(chunked) as server:
        response = await judge(server.url).judge(request())  # type: ignore[attr-defined]
        assert response.data == {"verdict": "MET", "reason": "ok"}
        assert response.usage.total_tokens == 5


async def test_a_stall_mid_body_times_out() -> None:
    async def stall(conn: RawConnection) -> None:
        await conn.read_request()
        await conn.send(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{")
        await asyncio.sleep(30)

    async with RawServer(stall) as server:
        j = judge(server.url, timeout_s=0.3)
        with pytest.raises(JudgeError, match="no reply within 0.3 s") as info:
            await j.judge(request())  # type: ignore[attr-defined]
        assert info.value.category == "timeout"


async def test_a_refused_connection_names_host_and_port() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, never listening: connections are refused
        with pytest.raises(JudgeError, match=f"cannot reach 127.0.0.1:{port}") as info:
            await judge(f"http://127.0.0.1:{port}/v1").judge(request())  # type: ignore[attr-defined]
    assert info.value.category == "connection"


def test_line_breaks_in_extra_headers_are_a_config_error() -> None:
    with pytest.raises(ConfigError, match="extra_headers"):
        judge("http://127.0.0.1:1/v1", extra_headers={"X-Note": "a\r\nAuthorization: x"})


async def test_headers_the_client_owns_are_refused_and_others_merge_without_case() -> None:
    with pytest.raises(ConfigError, match="'Content-Length' is set by the client"):
        judge("http://127.0.0.1:1/v1", extra_headers={"Content-Length": "5"})
    async with RawServer(keep_alive) as server:
        endpoint = Endpoint(
            server.url + "/v1/x", {"user-agent": "mine/1", "Accept-Encoding": "identity"}
        )
        await endpoint.post(b"{}", timeout_s=5)
        headers = {k.lower(): v for k, v in server.requests[0].headers.items()}
    assert headers["user-agent"] == "mine/1"  # one value: ours replaced, not added
    assert headers["accept-encoding"] == "identity"


def test_non_http_urls_are_a_config_error() -> None:
    with pytest.raises(ConfigError, match="'ftp://example.com/v1/chat/completions' is not an http"):
        judge("ftp://example.com/v1")
    with pytest.raises(ConfigError, match="like 'http://localhost:8000/v1'"):
        judge("localhost:8000/v1")
    with pytest.raises(ConfigError, match="not a valid URL"):
        judge("http://localhost:port/v1")


# -- TLS ----------------------------------------------------------------------------
@pytest.fixture
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def trusted_ca(ca: trustme.CA, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> trustme.CA:
    """A CA whose certificate the client trusts through ``SSL_CERT_FILE``."""
    bundle = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    return ca


def server_tls(ca: trustme.CA, *names: str) -> ssl.SSLContext:
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(*names).configure_cert(ctx)
    return ctx


async def test_https_with_a_trusted_ca(trusted_ca: trustme.CA) -> None:
    async with RawServer(keep_alive, ssl_context=server_tls(trusted_ca, "127.0.0.1")) as server:
        assert server.url.startswith("https://")
        j = judge(server.url)
        for _ in range(2):
            response = await j.judge(request())  # type: ignore[attr-defined]
            assert response.data["verdict"] == "MET"
        assert server.connections == 1


async def test_https_with_an_untrusted_certificate_is_refused(ca: trustme.CA) -> None:
    async with RawServer(keep_alive, ssl_context=server_tls(ca, "127.0.0.1")) as server:
        with pytest.raises(JudgeError, match="not trusted.*SSL_CERT_FILE") as info:
            await judge(server.url).judge(request())  # type: ignore[attr-defined]
        assert info.value.category == "bad_request"  # not retried: waiting will not fix it
        assert server.requests == []


# -- proxies ------------------------------------------------------------------------
async def test_http_through_a_proxy_uses_absolute_form_and_proxy_auth(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with RawServer(keep_alive) as proxy:
        monkeypatch.setenv("HTTP_PROXY", f"http://ann:s%40cret@127.0.0.1:{proxy.port}")
        j = judge("http://judge.example:8080/v1")
        assert (await j.judge(request())).data["verdict"] == "MET"  # type: ignore[attr-defined]
        (sent,) = proxy.requests
        assert sent.line == "POST http://judge.example:8080/v1/chat/completions HTTP/1.1"
        assert sent.headers["host"] == "judge.example:8080"
        expected = base64.b64encode(b"ann:s@cret").decode()
        assert sent.headers["proxy-authorization"] == f"Basic {expected}"


async def test_https_through_a_connect_tunnel(
    trusted_ca: trustme.CA, monkeypatch: pytest.MonkeyPatch
) -> None:
    tunnels: list[str] = []
    tls = server_tls(trusted_ca, "judge.example")
    async with RawServer(keep_alive, ssl_context=tls) as origin:

        async def connect_proxy(conn: RawConnection) -> None:
            got = await conn.read_head()
            assert got is not None
            tunnels.append(got[0])
            reader, writer = await asyncio.open_connection("127.0.0.1", origin.port)
            await conn.send(b"HTTP/1.1 200 Connection established\r\n\r\n")

            async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
                dst.close()

            try:
                await asyncio.gather(pipe(conn.reader, writer), pipe(reader, conn.writer))
            finally:
                writer.close()

        async with RawServer(connect_proxy) as proxy:
            monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{proxy.port}")
            j = judge("https://judge.example:443/v1")
            for _ in range(2):
                response = await j.judge(request())  # type: ignore[attr-defined]
                assert response.data["verdict"] == "MET"
        assert tunnels == ["CONNECT judge.example:443 HTTP/1.1"]  # one tunnel, kept alive
        (first, second) = origin.requests
        assert first.line == "POST /v1/chat/completions HTTP/1.1"


async def test_a_proxy_refusing_the_tunnel_is_an_auth_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def refuse(conn: RawConnection) -> None:
        await conn.read_head()
        await conn.send(b"HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n")

    async with RawServer(refuse) as proxy:
        monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{proxy.port}")
        with pytest.raises(
            JudgeError, match="proxy refused to reach judge.example: HTTP 407"
        ) as info:
            await judge("https://judge.example/v1").judge(request())  # type: ignore[attr-defined]
        assert info.value.category == "auth"


async def test_loopback_and_no_proxy_hosts_bypass_the_proxy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # discard port: nothing answers
    monkeypatch.setenv("NO_PROXY", "judge.internal")
    async with RawServer(keep_alive) as server:
        assert (await judge(server.url).judge(request())).data["verdict"] == "MET"  # type: ignore[attr-defined]
    # a NO_PROXY host is reached directly: the connection is refused by the host itself,
    # not by the dead proxy at port 9
    with pytest.raises(JudgeError, match="cannot reach judge.internal") as direct:
        await Endpoint("http://judge.internal:1/v1", {}).post(b"{}", timeout_s=5)
    with pytest.raises(JudgeError, match="cannot reach 127.0.0.1:9"):
        await Endpoint("http://judge.example/v1", {}).post(b"{}", timeout_s=5)
    assert direct.value.category == "connection"
