"""The HTTP/1.1 response parser behind the judges' HTTP client, fed real reply bytes."""

from __future__ import annotations

import gzip
import zlib

import pytest

from rubricate._judges._wire import ProtocolError, ResponseParser, request_head


def parse(*chunks: bytes, eof: bool = False) -> ResponseParser:
    parser = ResponseParser()
    for chunk in chunks:
        parser.feed(chunk)
    if eof:
        parser.eof()
    return parser


def bytewise(data: bytes) -> ResponseParser:
    return parse(*(data[i : i + 1] for i in range(len(data))))


OK = b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{"a": true}'


def test_content_length_body_whole_or_byte_by_byte() -> None:
    for parser in (parse(OK), bytewise(OK)):
        assert parser.done and parser.status == 200 and parser.reason == "OK"
        assert parser.headers["content-type"] == "application/json"
        assert parser.body == b'{"a": true}' and parser.keep_alive


def test_incomplete_body_is_not_done_and_eof_names_it() -> None:
    parser = parse(OK[:-3])
    assert not parser.done
    with pytest.raises(ProtocolError, match="before the whole reply") as info:
        parser.eof()
    assert info.value.started


def test_eof_before_any_byte_says_so() -> None:
    with pytest.raises(ProtocolError, match="without replying") as info:
        ResponseParser().eof()
    assert not info.value.started


def test_chunked_with_extensions_and_trailers() -> None:
    data = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5;name=x\r\nhello\r\n1\r\n \r\n6\r\nworld!\r\n0\r\nX-Trailer: 1\r\n\r\n"
    )
    for parser in (parse(data), bytewise(data)):
        assert parser.done and parser.body == b"hello world!" and parser.keep_alive


def test_chunked_framing_errors() -> None:
    with pytest.raises(ProtocolError, match="chunk size"):
        parse(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
    with pytest.raises(ProtocolError, match="CRLF"):
        parse(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXY")


def test_informational_replies_are_skipped() -> None:
    parser = parse(b"HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n" + OK)
    assert parser.status == 200 and parser.body == b'{"a": true}' and "link" not in parser.headers


def test_body_until_close_when_no_length() -> None:
    parser = parse(b"HTTP/1.1 200 OK\r\n\r\npart one, ", b"part two")
    assert not parser.done and not parser.keep_alive
    parser.eof()
    assert parser.done and parser.body == b"part one, part two"


@pytest.mark.parametrize(
    ("head", "keep"),
    [
        (b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", False),
        (b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", False),
        (b"HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n", True),
        (b"HTTP/1.1 204 No Content\r\n\r\n", True),
    ],
)
def test_keep_alive_rules(head: bytes, keep: bool) -> None:
    parser = parse(head)
    assert parser.done and parser.body == b"" and parser.keep_alive is keep


def test_bytes_after_the_reply_make_the_connection_unusable() -> None:
    parser = parse(OK + b"HTTP/1.1 200 OK\r\n")
    assert parser.done and not parser.keep_alive


def test_gzip_and_deflate_bodies_are_decoded() -> None:
    raw = b'{"verdict": "MET"}' * 50
    for coding, packed in (("gzip", gzip.compress(raw)), ("deflate", zlib.compress(raw))):
        head = f"HTTP/1.1 200 OK\r\nContent-Encoding: {coding}\r\n"
        head += f"Content-Length: {len(packed)}\r\n\r\n"
        assert parse(head.encode() + packed).body == raw
    with pytest.raises(ProtocolError, match="'br'"):
        parse(b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: 1\r\n\r\nx")
    with pytest.raises(ProtocolError, match="does not decompress"):
        parse(b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 3\r\n\r\nxyz")


def test_repeated_headers_are_joined() -> None:
    parser = parse(b"HTTP/1.1 200 OK\r\nVia: a\r\nvia: b\r\nContent-Length: 0\r\n\r\n")
    assert parser.headers["via"] == "a, b"


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"SSH-2.0-OpenSSH_9.2\r\n\r\n", "status line"),
        (b"HTTP/1.1 abc OK\r\n\r\n", "status line"),
        (b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "header line"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\n", "Content-Length"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "out of range"),
        (b"HTTP/1.1 200 OK\r\nX: " + b"y" * 70_000, "64 KiB"),
    ],
)
def test_malformed_replies(data: bytes, match: str) -> None:
    with pytest.raises(ProtocolError, match=match):
        parse(data)


def test_request_head_refuses_line_breaks_in_headers() -> None:
    head = request_head("POST", "/v1/x", "h:1", {"Authorization": "Bearer k"}, 7)
    assert head == (
        b"POST /v1/x HTTP/1.1\r\nHost: h:1\r\nAuthorization: Bearer k\r\nContent-Length: 7\r\n\r\n"
    )
    with pytest.raises(ValueError, match="line break"):
        request_head("POST", "/", "h", {"X-Evil": "a\r\nHost: other"}, 0)
    with pytest.raises(ValueError, match="line break"):
        request_head("POST", "/", "h", {"X\r\nY": "a"}, 0)
