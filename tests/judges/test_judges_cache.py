"""The SQLite response cache, over real HTTP: hits, key sensitivity, no secrets on disk."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from rubricjudge._judges._base import JudgeRequest
from rubricjudge._judges._cache import ResponseCache, default_cache_path, open_cache
from tests.support.chat_server import ChatServer, Reply
from tests.support.judge_helpers import SCHEMA, SECRET, openai_judge, request


async def test_second_identical_call_is_replayed(chat_server: ChatServer, tmp_path: Path) -> None:
    chat_server.script(Reply.json({"verdict": "UNMET", "reason": "r"}, usage=(100, 20)))
    file = str(tmp_path / "c.sqlite3")
    first = await openai_judge(chat_server, cache=file, prices={"input": 1, "output": 2}).judge(
        request()
    )
    # a new judge object (as a new process would build) replays from the file
    second = await openai_judge(chat_server, cache=file, prices={"input": 1, "output": 2}).judge(
        request()
    )
    assert len(chat_server.chat_requests) == 1
    assert not first.cached and first.cost is not None and first.cost > 0
    assert second.cached and second.cost == 0.0 and second.attempts == 0
    assert second.data == first.data == {"verdict": "UNMET", "reason": "r"}
    assert second.usage == first.usage and second.raw_text == first.raw_text


async def test_default_file_lives_under_the_cache_dir_env(chat_server: ChatServer) -> None:
    judge = openai_judge(chat_server, cache=True)
    await judge.judge(request())
    await judge.judge(request())
    assert len(chat_server.chat_requests) == 1
    shared = open_cache(True)
    assert shared is not None
    shared.flush()  # writes are batched by a background thread: make them visible
    path = default_cache_path()
    assert path.exists() and "judge-cache" in str(path.parent)  # the fixture's tmp dir
    reader = ResponseCache(path)
    assert len(reader) == 1
    reader.close()


VARIANTS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("system", {}, {"system": "You are lenient."}),
    ("user", {}, {"user": "Is grass green?"}),
    ("schema", {}, {"schema": {**SCHEMA, "required": ["verdict"]}}),
    ("schema_name", {}, {"schema_name": "other"}),
    ("seed", {}, {"seed": 5}),
    ("max_tokens", {}, {"max_tokens": 64}),
    ("model", {"model": "another-model"}, {}),
    ("extra_params", {"extra_params": {"top_p": 0.5}}, {}),
    ("reasoning", {"reasoning": {"effort": "high"}}, {}),
]


@pytest.mark.parametrize(("what", "options", "changes"), VARIANTS, ids=[v[0] for v in VARIANTS])
async def test_key_changes_with_everything_that_decides_the_answer(
    chat_server: ChatServer,
    tmp_path: Path,
    what: str,
    options: dict[str, Any],
    changes: dict[str, Any],
) -> None:
    file = str(tmp_path / "c.sqlite3")
    base = request()
    await openai_judge(chat_server, cache=file).judge(base)
    model = options.pop("model", "test-model")
    changed = JudgeRequest(**{**base.__dict__, **changes})
    response = await openai_judge(chat_server, model, cache=file, **options).judge(changed)
    assert not response.cached, what
    assert len(chat_server.chat_requests) == 2


async def test_key_ignores_tags_prefix_hint_api_key_and_headers(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    file = str(tmp_path / "c.sqlite3")
    await openai_judge(chat_server, cache=file).judge(request())
    again = request(tags={"criterion": 3}, shared_prefix_chars=10)
    other = openai_judge(chat_server, cache=file, api_key="sk-other", extra_headers={"X-A": "b"})
    assert (await other.judge(again)).cached
    assert len(chat_server.chat_requests) == 1


async def test_another_server_is_another_key(tmp_path: Path) -> None:
    file = str(tmp_path / "c.sqlite3")
    with ChatServer() as one, ChatServer() as two:
        await openai_judge(one, cache=file).judge(request())
        response = await openai_judge(two, cache=file).judge(request())
        assert not response.cached and len(two.chat_requests) == 1


async def test_sampled_calls_are_not_cached_unless_seeded(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    file = str(tmp_path / "c.sqlite3")
    judge = openai_judge(chat_server, cache=file, temperature=0.7)
    assert not (await judge.judge(request())).cached
    assert not (await judge.judge(request())).cached
    assert len(chat_server.chat_requests) == 2
    seeded = openai_judge(chat_server, cache=file, temperature=0.7, seed=1)
    await seeded.judge(request())
    assert (await seeded.judge(request())).cached
    assert len(chat_server.chat_requests) == 3


async def test_cache_false_always_calls(chat_server: ChatServer) -> None:
    judge = openai_judge(chat_server, cache=False)
    for _ in range(2):
        assert not (await judge.judge(request())).cached
    assert len(chat_server.chat_requests) == 2


async def test_failures_are_not_cached(chat_server: ChatServer, tmp_path: Path) -> None:
    chat_server.script(Reply.error(400, "bad"))
    judge = openai_judge(chat_server, cache=str(tmp_path / "c.sqlite3"))
    with pytest.raises(Exception, match="bad_request"):
        await judge.judge(request())
    assert not (await judge.judge(request())).cached


async def test_api_key_never_reaches_the_cache_file(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    file = tmp_path / "c.sqlite3"
    judge = openai_judge(chat_server, cache=str(file))
    for i in range(3):
        await judge.judge(request(f"question {i}"))
    assert chat_server.chat_requests[0].headers["authorization"].endswith(SECRET)
    shared = open_cache(str(file))
    assert shared is not None
    shared.flush()  # the writer thread may not have run yet on a busy machine
    conn = sqlite3.connect(file)
    conn.execute("PRAGMA wal_checkpoint(FULL)")
    conn.close()
    blobs = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith(file.name))
    assert b"verdict" in blobs  # the answers are there...
    assert SECRET.encode() not in blobs  # ...the key is not
    assert b"SECRET" not in blobs


def test_writes_are_batched_off_the_caller_and_survive_a_normal_exit(tmp_path: Path) -> None:
    """put() returns before the row is written; lookups see it; exit writes what is pending."""
    import subprocess
    import sys
    import textwrap

    path = tmp_path / "c.sqlite3"
    script = textwrap.dedent(
        f"""
        import threading
        from rubricjudge._judges._cache import ResponseCache
        c = ResponseCache({str(path)!r})
        for i in range(300):
            c.put(f"k{{i}}", judge="j", model="m", data={{"i": i}}, raw_text="t",
                  reasoning=None, usage=None)
            assert c.get(f"k{{i}}")["data"] == {{"i": i}}  # seen before it is written
        assert any(t.name == "rubricjudge-cache" for t in threading.enumerate())
        """  # neither flush() nor close(): the interpreter's exit must write the rest
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    reopened = ResponseCache(path)
    assert len(reopened) == 300 and reopened.get("k299")["data"] == {"i": 299}  # type: ignore[index]
    reopened.close()


def _put(cache: ResponseCache, key: str) -> None:
    cache.put(key, judge="j", model="m", data={"k": key}, raw_text="t", reasoning=None, usage=None)


def test_a_miss_asks_sqlite_nothing_once_the_keys_are_read(tmp_path: Path) -> None:
    """Issue 39: a lookup of an absent key was a SQLite query on every call."""
    cache = ResponseCache(tmp_path / "c.sqlite3")
    _put(cache, "stored")
    cache.flush()
    statements: list[str] = []
    cache._conn.set_trace_callback(statements.append)
    assert cache.get("absent-0") is None  # the first lookup reads the keys' hashes
    first = len(statements)
    for i in range(1, 200):
        assert cache.get(f"absent-{i}") is None
    assert len(statements) == first  # no query for the 199 misses after it
    got = cache.get("stored")
    assert got is not None and got["data"] == {"k": "stored"}
    assert len(statements) > first  # a key that is there is read from the file
    cache.close()


def test_rows_another_connection_commits_are_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import rubricjudge._judges._cache as cache_module

    monkeypatch.setattr(cache_module, "RECHECK_S", 0.0)
    path = tmp_path / "c.sqlite3"
    reader, writer = ResponseCache(path), ResponseCache(path)  # two connections, as two processes
    assert reader.get("later") is None  # its index is read now, without "later"
    _put(writer, "later")
    writer.flush()
    got = reader.get("later")
    assert got is not None and got["data"] == {"k": "later"}
    reader.close()
    writer.close()


def test_a_file_too_big_to_index_is_asked_every_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import rubricjudge._judges._cache as cache_module

    monkeypatch.setattr(cache_module, "INDEX_MAX", 3)
    path = tmp_path / "c.sqlite3"
    first = ResponseCache(path)
    for i in range(5):
        _put(first, f"k{i}")
    first.close()
    cache = ResponseCache(path)
    assert [cache.get(f"k{i}") is not None for i in range(5)] == [True] * 5
    assert cache._index is None and cache.get("absent") is None
    cache.close()
