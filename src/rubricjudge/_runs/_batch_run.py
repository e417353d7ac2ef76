"""``--batch-api``: answer a run's judgments through provider batch APIs, crash-safely.

Before the usual pass of a run, :func:`run_batches` works in rounds:

1. *collect*: the grader runs over the unfinished items with :class:`BatchJudge`
   wrappers; every question without a stored answer is written to the ledger;
2. *submit*: the pending requests are cut into batches within the provider's
   limits (requests and bytes per batch, one judge per batch); each batch is
   committed with its requests *before* anything is sent, the file id (OpenAI
   uploads a file first), the time of the create call and the batch id are
   committed as soon as they are known (see ``_batch_ledger``);
3. *poll*: every open batch is polled each ``poll_s`` seconds; a finished one's
   results (OpenAI's output and error files, Anthropic's results) are read and
   committed in chunks as they download.
   Requests an expired, cancelled or failed batch did not answer go back to
   pending and into a later batch (at most ``max_submissions`` times each).

A grader that asks follow-up questions (evidence checks ask for a quote after a
MET) gets them answered in the next round; the rounds end when the grader asks
nothing new. The run's usual pass then replays every answer from the store.

Everything provider-specific sits behind the ``BatchAPI`` contract
(``_judges/_batch_common.py``): ``OpenAIBatches`` for ``openai/`` judges,
``AnthropicBatches`` (Message Batches) for ``anthropic/`` judges. The options, and
the checks that a run can use batches at all, are in ``_batch_options``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from .._aio import gather_all
from .._errors import ConfigError, RunError, UsageError
from .._judges._base import Decision
from .._judges._batch_common import AmbiguousBatch, BatchAPI, LineResult
from ._batch_judge import BatchJudge
from ._batch_ledger import TERMINAL, BatchLedger, BatchRow
from ._batch_options import BatchOptions, adapter_for
from ._engine import RunSession
from ._job import Job, RunGrader, call_grader
from ._progress import Progress, ProgressArg, make_progress
from ._recording import CURRENT_ITEM

__all__ = ["run_batches"]

_CHUNK = 200  # result lines per transaction


async def run_batches(
    session: RunSession[RunGrader],
    jobs: Callable[[], Iterator[Job]],
    options: BatchOptions,
    *,
    concurrency: int,
    progress: ProgressArg = None,
) -> None:
    """Answer every judgment the jobs need through batches (see the module docstring).

    Raises:
        ConfigError: no run store, or a judge without a batch API.
        RunError: the provider's batch endpoints failed (resume continues).
    """
    store = session.store
    if store is None:
        raise ConfigError(
            "--batch-api needs --run-dir (run_dir=): batch ids are committed there, so a "
            "killed run resumes by polling the batches it already created"
        )
    ledger = BatchLedger(store)
    wrappers = [w for w in session.wrappers if isinstance(w, BatchJudge)]
    adapters: dict[str, BatchAPI] = {}
    for w in wrappers:
        w.adapter = adapters.setdefault(w.name, adapter_for(w.inner))
        w.ledger = ledger
    runner = _Runner(session, ledger, adapters, options, progress)
    for round_no in range(1, options.max_rounds + 2):
        waiting = await runner.collect(jobs(), concurrency)
        ledger.flush()
        if waiting == 0 and not ledger.open_batches():
            break
        if round_no > options.max_rounds:
            raise RunError(
                f"the grader still asks new questions after {options.max_rounds} rounds of "
                "batches; run without --batch-api"
            )
        await runner.submit()
        await runner.poll()
    for w in wrappers:
        w.final = True
        w.calls = w.replayed = w.errors = 0


class _Runner:
    def __init__(
        self,
        session: RunSession[RunGrader],
        ledger: BatchLedger,
        adapters: dict[str, BatchAPI],
        options: BatchOptions,
        progress: ProgressArg,
    ) -> None:
        assert session.store is not None
        self.session = session
        self.ledger = ledger
        self.adapters = adapters
        self.options = options
        self.progress = progress
        self.dir = session.store.run_dir / "batches"
        self.why: dict[str, str] = {}  # custom_id -> why its last batch left it unanswered

    async def collect(self, jobs: Iterator[Job], concurrency: int) -> int:
        """Grade every job once, deferring what has no answer; return how many wait."""
        session = self.session
        wrappers = [w for w in session.wrappers if isinstance(w, BatchJudge)]
        before = sum(w.waiting for w in wrappers)

        async def worker() -> None:
            while (job := next(jobs, None)) is not None:
                token = CURRENT_ITEM.set(job.key)
                try:
                    await call_grader(session.bound, job)
                except UsageError:
                    raise
                except Exception:  # the final pass records what failed
                    pass
                finally:
                    CURRENT_ITEM.reset(token)
                    for w in session.wrappers:
                        w.forget_item(job.key)

        await gather_all([worker() for _ in range(max(1, concurrency))])
        return sum(w.waiting for w in wrappers) - before

    # -- submit --------------------------------------------------------------------
    async def submit(self) -> None:
        """Create the batches a killed session left half made, then batches for what pends."""
        for row in self.ledger.open_batches():
            if row.batch_id is None:
                await self._create(row)
        for judge in self.ledger.pending_judges():
            adapter = self.adapters.get(judge)
            if adapter is None:
                raise RunError(
                    f"the run store holds requests for {judge!r}, not a judge of this run"
                )
            while True:
                lines, ids = self._next_file(judge, adapter)
                if not ids:
                    break
                local = self.ledger.new_batch(adapter.provider, judge, ids)
                row = BatchRow(local, adapter.provider, judge, None, None, "preparing", len(ids))
                await self._create(row, lines)

    def _next_file(self, judge: str, adapter: BatchAPI) -> tuple[list[bytes], list[str]]:
        """The next batch's lines, within the request and byte limits."""
        opts = self.options
        max_bytes = min(opts.max_bytes, adapter.max_bytes)
        lines: list[bytes] = []
        ids: list[str] = []
        size = 0
        too_big: list[str] = []
        for req in self.ledger.pending(judge, limit=min(opts.max_requests, adapter.max_requests)):
            line = adapter.line(req.custom_id, req.body)
            if len(line) > max_bytes:
                too_big.append(req.custom_id)
                continue
            if size + len(line) > max_bytes:
                break
            lines.append(line)
            ids.append(req.custom_id)
            size += len(line)
        if too_big:
            with self.ledger.store.transaction():
                for cid in too_big:
                    self.ledger.fail(
                        cid,
                        f"{judge}: the request is larger than a batch file may be "
                        f"({max_bytes} bytes)",
                        "bad_request",
                    )
        return lines, ids

    async def _create(self, row: BatchRow, lines: list[bytes] | None = None) -> None:
        """Upload a batch's file (unless uploaded) and create the batch (unless created)."""
        adapter = self.adapters[row.judge]
        ledger = self.ledger

        def build() -> list[bytes]:
            nonlocal lines
            if lines is None:
                lines = [adapter.line(c, b) for c, b in ledger.batch_lines(row.id)]
            return lines

        file_id = row.input_file_id
        found = None
        if file_id is not None or row.intent is not None:
            # a killed session may have created it, the reply lost: look before creating
            found = await self._find(adapter, row, row.intent)
        if found is None and file_id is None:
            self.dir.mkdir(exist_ok=True)
            path = self.dir / f"batch-{row.id}.jsonl"
            tmp = path.with_suffix(".partial")
            tmp.write_bytes(b"".join(build()))
            tmp.replace(path)
            file_id = await adapter.upload(path)  # None: the provider takes requests inline
            if file_id is not None:
                ledger.set_file(row.id, file_id)
            path.unlink(missing_ok=True)
        for attempt in range(3):
            if found is None:
                intent = ledger.set_intent(row.id)  # committed before the call
                try:
                    found = await adapter.create(file_id, build, row.id)
                except AmbiguousBatch:
                    raise
                except RunError:
                    # the reply may be what failed: look before creating a second batch
                    found = await self._find(adapter, replace(row, input_file_id=file_id), intent)
                    if found is None and attempt == 2:
                        raise
            if found is not None:
                ledger.set_batch(row.id, found)
                return
            await asyncio.sleep(min(30.0, self.options.poll_s * 2**attempt))

    async def _find(self, adapter: BatchAPI, row: BatchRow, since: float | None) -> Any:
        try:
            return await adapter.find(
                row.input_file_id, row.requests, since, self.ledger.batch_ids()
            )
        except AmbiguousBatch:
            if self.options.resubmit_lost:
                return None  # the user chose to send the requests again
            raise

    # -- poll and read -------------------------------------------------------------
    async def poll(self) -> None:
        """Poll the open batches until every one is finished and read."""
        ledger = self.ledger
        total = sum(r.requests for r in ledger.open_batches())
        bar = self._progress(total)
        try:
            while True:
                rows = [r for r in ledger.open_batches() if r.batch_id is not None]
                if not rows:
                    return
                for row in rows:
                    assert row.batch_id is not None
                    batch = await self.adapters[row.judge].retrieve(row.batch_id)
                    ledger.set_batch(row.id, batch)
                    if batch.get("status") in TERMINAL:
                        bar.advance(count=await self._read(row, batch))
                    done, all_ = ledger.batch_counts()
                    bar.status(f"batches {done}/{all_} done")
                if any(r.batch_id is not None for r in ledger.open_batches()):
                    await asyncio.sleep(self.options.poll_s)
        finally:
            bar.close()

    def _progress(self, total: int) -> Progress:
        if callable(self.progress):
            return Progress(total, unit="request")
        bar = make_progress(self.progress, total)
        bar.total = total
        return bar

    async def _read(self, row: BatchRow, batch: dict[str, Any]) -> int:
        """Commit a finished batch's results; requeue what it did not answer."""
        adapter = self.adapters[row.judge]
        ledger = self.ledger
        status = str(batch.get("status"))
        seen = 0
        # only the requests sent in this very batch are answered by it, each once: a
        # result for another id, or a second result for one id, is not trusted
        ids: set[str] = set()
        twice: set[str] = set()
        strays = 0
        for file_id in (batch.get("output_file_id"), batch.get("error_file_id")):
            if not file_id:
                continue
            chunk: list[LineResult] = []
            async for raw in adapter.lines(str(file_id)):
                try:
                    obj = json.loads(raw)
                except ValueError:
                    continue
                cid = str(obj.get("custom_id") or "") if isinstance(obj, dict) else ""
                if cid in ids:
                    twice.add(cid)
                    continue
                got = ledger.request(cid)
                if got is None or not ledger.sent_in(cid, row.id):
                    strays += 1
                    continue
                ids.add(cid)
                decision = _decision(got[4])
                chunk.append(adapter.read(obj, decision, ledger.body(cid)))
                if len(chunk) >= _CHUNK:
                    seen += self._commit(row.judge, chunk, str(row.batch_id))
                    chunk = []
            seen += self._commit(row.judge, chunk, str(row.batch_id))
        self._reject(row, twice, strays)
        with ledger.store.transaction():
            for cid, submissions in ledger.unanswered(row.id):
                if submissions >= self.options.max_submissions:
                    why = (
                        self.why.pop(cid, None)
                        or _batch_errors(batch)
                        or f"the batch ended {status}"
                    )
                    ledger.fail(
                        cid,
                        f"{row.judge}: no answer after {submissions} batches "
                        f"(last {row.batch_id}: {why})",
                        "server",
                    )
                    seen += 1
                else:
                    ledger.requeue(cid)
            ledger.mark_collected(row.id)
        return seen

    def _reject(self, row: BatchRow, twice: set[str], strays: int) -> None:
        """Record the results a batch's files held that it cannot have given."""
        ledger = self.ledger
        with ledger.store.transaction():
            for cid in sorted(twice):
                message = (
                    f"{row.judge}: batch {row.batch_id} returned more than one result for "
                    "this request; none is trusted"
                )
                if ledger.void(cid, row.id, message):
                    self.session.batch_answers -= 1
        self.session.batch_rejected += len(twice) + strays

    def _commit(self, judge: str, results: list[LineResult], batch_id: str) -> int:
        """Commit a chunk of results in one transaction; count those that settled a request."""
        ledger = self.ledger
        settled = 0
        with ledger.store.transaction():
            for r in results:
                if r.response is not None:
                    item = ledger.answer(r.custom_id, judge, r.response)
                    if item is not None:
                        self.session.stored_items.add(item)
                        self.session.batch_answers += 1
                        settled += 1
                elif r.retry:
                    self.why[r.custom_id] = r.error or "not answered"
                else:
                    message = f"{judge}: {r.error} (batch {batch_id})"
                    settled += ledger.fail(r.custom_id, message, r.category)
        return settled


def _decision(text: str | None) -> Decision | None:
    if not text:
        return None
    key, values = json.loads(text)
    return Decision(key, tuple(values))


def _batch_errors(batch: dict[str, Any]) -> str:
    errors = batch.get("errors")
    data = errors.get("data") if isinstance(errors, dict) else None
    if not isinstance(data, list):
        return ""
    return "; ".join(str(e.get("message") or e.get("code")) for e in data if isinstance(e, dict))
