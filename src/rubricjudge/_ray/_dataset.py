"""Grade a Ray Dataset: ``map_batches`` over a pool of actors, each holding its grader.

Each actor builds its grader once from a :class:`GraderSpec` (a local model is
loaded once per actor, on its first call) and grades the rows of a batch
concurrently on its own event loop. The rows come back with report columns added.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._errors import ConfigError, UsageError
from .._formats._load import load_data, load_file
from .._graders._spec import GraderSpec
from .._model._reports import EvaluationReport
from .._model._rubric import Criterion, Rubric
from ._setup import forwarded_env, import_ray, judge_backends

__all__ = ["REPORT_COLUMNS", "BatchGrader", "grade_dataset", "report_columns"]

REPORT_COLUMNS = ("score", "passed", "verdicts", "error_count", "error")
"""The columns :func:`grade_dataset` adds (and ``report`` with ``include_report``)."""


def _rubric(rubric: object) -> Rubric:
    if isinstance(rubric, Rubric):
        return rubric
    if isinstance(rubric, list) and all(isinstance(c, Criterion) for c in rubric):
        return Rubric(rubric)

    if isinstance(rubric, str | os.PathLike):
        if not Path(rubric).is_file():
            raise ConfigError(f"rubric file {os.fspath(rubric)!r} not found")
        loaded: Rubric = load_file(rubric)
        return loaded
    if isinstance(rubric, Mapping | list):
        data: Rubric = load_data(rubric)
        return data
    raise ConfigError(
        f"rubric is {type(rubric).__name__}; give a Rubric, a rubric dict or a file path"
    )


def report_columns(report: EvaluationReport | None, error: str | None = None) -> dict[str, Any]:
    """The columns one row gets: score, passed, verdicts (JSON by criterion), errors."""
    if report is None:
        return {"score": None, "passed": None, "verdicts": "{}", "error_count": 0, "error": error}
    verdicts: dict[str, str | None] = {}
    errors: list[str] = []
    for i, c in enumerate(report.report or []):
        if c.verdict is not None:
            answer: str | None = c.verdict.value
        else:
            answer = c.selection.label if c.selection is not None else None
        verdicts[c.key or f"#{i}"] = answer
        if c.error:
            errors.append(f"{c.key or f'#{i}'}: {c.error}")
    # each failed criterion by name when there are any (the item's own error, such as
    # "the judge failed on 1 of 3 criteria", only summarises them)
    error = "; ".join(errors) if errors else report.error
    return {
        "score": report.score,
        "passed": report.passed,
        "verdicts": json.dumps(verdicts, ensure_ascii=False),
        "error_count": report.error_count,
        "error": error,
    }


class BatchGrader:
    """The callable class of ``map_batches``: one grader per actor, rows graded concurrently."""

    def __init__(
        self,
        spec: GraderSpec,
        rubric: Rubric,
        columns: Mapping[str, str | None],
        concurrency: int,
        include_report: bool,
        env: Mapping[str, str],
    ) -> None:
        os.environ.update(env)
        self._grader: Any = spec.build()
        self._grader.members()  # judges built once per actor
        self._rubric = rubric
        self._columns = dict(columns)
        self._concurrency = concurrency
        self._include_report = include_report
        self._limit: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        atexit.register(self._close)

    async def __call__(self, batch: Any) -> Any:
        """Grade every row of a pandas batch; return it with the report columns added.

        Async, so Ray Data runs several batches of one actor at once on the actor's
        loop: a batch's slowest row does not hold the next batch back. At most
        ``concurrency`` rows of the actor are graded at once, across its batches.
        """
        if self._limit is None:
            self._limit = asyncio.Semaphore(self._concurrency)
            self._loop = asyncio.get_running_loop()
        rows = batch.to_dict("records")
        graded = await asyncio.gather(*(self._one(r) for r in rows))
        out = batch.copy()
        for name in REPORT_COLUMNS:
            out[name] = [g[0][name] for g in graded]
        if self._include_report:
            out["report"] = [g[1] for g in graded]
        return out

    async def _one(self, row: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        assert self._limit is not None
        async with self._limit:
            return await self._grade(row)

    def _close(self) -> None:
        """Close the judges' HTTP sessions on the loop that opened them (at actor exit)."""
        loop = self._loop
        if loop is None or loop.is_closed() or not loop.is_running():
            return
        done = asyncio.run_coroutine_threadsafe(loop.shutdown_asyncgens(), loop)
        with contextlib.suppress(Exception):
            done.result(timeout=5)

    async def _grade(self, row: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        cols = self._columns

        def get(name: str) -> Any:
            column = cols.get(name)
            value = row.get(column) if column is not None else None
            return None if value is None or value != value else value  # NaN: missing

        item_id = get("id")
        try:
            report = await self._grader.grade(
                self._rubric,
                row[str(cols["submission"])],
                query=get("query"),
                reference_submission=get("reference"),
                item_id=None if item_id is None else str(item_id),
            )
        except UsageError:
            raise  # a misconfiguration fails every row alike: stop the dataset
        except Exception as e:  # this row's failure is data
            return report_columns(None, f"{type(e).__name__}: {e}"), None
        return report_columns(report), report.model_dump_json()


def grade_dataset(
    ds: Any,
    rubric: Rubric | Mapping[str, Any] | Sequence[Any] | str | os.PathLike[str],
    spec: GraderSpec | str = "local",
    *,
    submission_column: str = "submission",
    query_column: str | None = None,
    reference_column: str | None = None,
    id_column: str | None = None,
    actors: int | tuple[int, int] = 1,
    concurrency: int = 16,
    batch_size: int = 32,
    num_cpus: float = 1,
    include_report: bool = False,
    forward_env: bool = True,
    extra_env: Sequence[str] = (),
) -> Any:
    """Grade every row of a Ray Dataset against ``rubric``; return the dataset with reports.

    Adds the columns ``score`` (None when nothing could be graded), ``passed`` (None
    without a pass threshold), ``verdicts`` (JSON: criterion key -> verdict or option
    label), ``error_count`` and ``error`` (what failed, else None); with
    ``include_report`` also ``report``, the full :class:`EvaluationReport` JSON. Lazy,
    like every Ray Data transform: nothing runs until the dataset is consumed.

    Args:
        ds: a ``ray.data.Dataset`` with a ``submission_column`` (text, or a
            ``{"thinking", "output"}`` dict).
        rubric: a :class:`Rubric`, rubric data, or a rubric file (read here, on the driver).
        spec: the grader each actor builds, or a judge spec string for the default
            per-criterion grader.
        submission_column: the column of what is graded.
        query_column: the column of the query, if any.
        reference_column: the column of a reference answer, if any.
        id_column: the column of item ids (they seed option shuffling, as in ``evaluate``).
        actors: the size of the actor pool, or ``(min, max)`` to let Ray scale it.
        concurrency: rows graded at once on each actor.
        batch_size: rows per batch.
        num_cpus: CPUs each actor reserves.
        include_report: add the full report JSON as ``report``.
        forward_env: give the actors the environment variables their judges read
            (``OPENAI_API_KEY`` and ``OPENAI_BASE_URL`` for ``openai/``, and so on; the
            cache directory, TLS and proxy settings); False: none.
        extra_env: names of more variables to give them (a LiteLLM provider's key
            that is not named ``*_API_KEY``, say).

    Raises:
        ConfigError: Ray is missing, a bad rubric or argument.
    """
    ray = import_ray()
    if isinstance(spec, str):
        spec = GraderSpec(judge=spec)
    if concurrency < 1:
        raise ConfigError(f"concurrency {concurrency!r} must be at least 1")
    if batch_size < 1:
        raise ConfigError(f"batch_size {batch_size!r} must be at least 1")
    sizes = actors if isinstance(actors, tuple) else (actors,)
    if not sizes or any(n < 1 for n in sizes):
        raise ConfigError(f"actors {actors!r} must be at least 1")
    if isinstance(actors, tuple):
        pool = ray.data.ActorPoolStrategy(min_size=actors[0], max_size=actors[-1])
    else:
        pool = ray.data.ActorPoolStrategy(size=actors)
    columns = {
        "submission": submission_column,
        "query": query_column,
        "reference": reference_column,
        "id": id_column,
    }
    return ds.map_batches(
        BatchGrader,
        fn_constructor_kwargs={
            "spec": spec,
            "rubric": _rubric(rubric),
            "columns": columns,
            "concurrency": concurrency,
            "include_report": include_report,
            "env": forwarded_env(judge_backends(spec), extra_env) if forward_env else {},
        },
        batch_format="pandas",
        batch_size=batch_size,
        compute=pool,
        num_cpus=num_cpus,
    )
