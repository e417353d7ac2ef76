"""Answers are committed in groups off the event loop, and nothing more is at risk for it.

The run store's writer commits many answers per transaction on a thread of its own; a
call holds its place from before it is sent until its answer is committed, so no more
calls are sent and uncommitted than the judge's concurrency allows in flight (what a
SIGKILL could lose when each answer was committed alone). Here the file is locked by
another connection, so nothing can commit: the run must stop sending at that bound.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from rubricjudge._datasets._dataset import DataItem
from rubricjudge._datasets._io import RubricDataset
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._judges._fake import fake_reply_for_schema
from rubricjudge._judges._registry import get_judge
from rubricjudge._model._rubric import Criterion, Rubric
from rubricjudge._runs._evaluate import evaluate
from tests.support.chat_server import ChatServer, Reply, schema_of

ITEMS, CONCURRENCY = 12, 2


def _dataset() -> RubricDataset:
    rubric = Rubric([Criterion(name="c", requirement="The answer is right.")])
    items = [DataItem(submission=f"answer {i}", id=f"it{i}") for i in range(ITEMS)]
    return RubricDataset(prompt="Answer.", rubric=rubric, items=items)


async def test_no_more_calls_are_sent_than_may_be_in_flight_while_commits_wait(
    tmp_path: Path, chat_server: ChatServer
) -> None:
    chat_server.handler = lambda body: Reply.json(
        fake_reply_for_schema(schema_of(body) or {}), delay=0.2
    )
    judge = get_judge(
        "openai/test", base_url=chat_server.base_url, concurrency=CONCURRENCY, cache=False
    )
    grader = CriterionGrader(judge=judge, concurrency=ITEMS)  # only the judge limits calls
    run_dir = tmp_path / "run"
    task = asyncio.create_task(
        evaluate(_dataset(), grader, run_dir=run_dir, concurrency=ITEMS, progress=False)
    )
    while not chat_server.chat_requests:  # the store is open, the first call is out
        assert not task.done()
        await asyncio.sleep(0.005)
    blocker = sqlite3.connect(run_dir / "run.sqlite", isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # no answer can be committed until this ends
    try:
        await asyncio.sleep(1.0)  # five reply delays: answers came back, none committed
        sent = len(chat_server.chat_requests)
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert sent == CONCURRENCY, f"{sent} calls sent while no answer could be committed"
    result = await task
    assert result.summary.items_graded == ITEMS and result.summary.items_failed == 0
    assert len(chat_server.chat_requests) == ITEMS
    with sqlite3.connect(run_dir / "run.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM judgments").fetchone()[0] == ITEMS
        assert db.execute("SELECT COUNT(*) FROM items").fetchone()[0] == ITEMS
