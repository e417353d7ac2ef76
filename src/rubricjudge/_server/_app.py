"""The scoring server: a Starlette app over a rubric source and a grader.

Endpoints: ``GET /health``, ``GET /openapi.json`` (both open), ``GET /rubrics``,
``GET /rubrics/{id}``, ``POST /score``, ``POST /score/batch`` and ``POST
/get_reward`` (OpenRLHF's reward protocol, see ``_rewards``) (bearer token, unless
the app was built without one; ``/get_reward`` also takes it as ``?token=``,
since OpenRLHF's client sends no headers). Bodies over ``max_body_bytes`` are refused
with 413 before they are read in full; a batch over ``max_batch`` items is 422;
JSON that does not parse is 400 and a body of the wrong shape 422; an unknown
rubric is 404. Grading is async all the way, so a slow judge call holds only its
own request, and at most ``timeout_s`` seconds: past that the request is 504. The
judge failures of a grade are in its report (as data). ``/health`` names the kind
of rubric source only (never a path on the server).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import ValidationError

from .._aio import gather_all
from .._errors import RubricError, RubricJudgeError, RunError, UsageError, missing_extra
from .._hybrid._grader import HybridGrader
from .._model._rubric import Rubric
from .._rewards._batch import grade_rewards
from ._models import BatchItem, BatchRequest, ScoreRequest
from ._openapi import openapi_document
from ._requests import HTTPError, bearer_ok
from ._requests import read_json as read_body
from ._rewards import RewardRequest, log, reply, rollouts_of
from ._settings import ServerSettings
from ._sources import RubricNotFoundError

__all__ = ["create_app"]

_OPEN_PATHS = ("/health", "/openapi.json")


def _starlette() -> Any:
    try:
        import starlette  # noqa: F401
    except ImportError:
        raise missing_extra("serve", "the scoring server needs starlette and uvicorn") from None


def create_app(settings: ServerSettings) -> Any:
    """Build the Starlette application for ``settings``."""
    _starlette()
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    def error(status: int, message: str, detail: Any = None) -> Response:
        body: dict[str, Any] = {"error": message}
        if detail is not None:
            body["detail"] = detail
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
        return JSONResponse(body, status_code=status, headers=headers)

    def authorized(request: Request, in_url: bool = False) -> bool:
        header = request.headers.get("authorization", "")
        if in_url and not header:
            # a trainer whose client sends no headers puts the token in the URL
            header = "Bearer " + request.query_params.get("token", "")
        return bearer_ok(header, settings.token)

    async def read_json(request: Request) -> Any:
        return await read_body(request, settings.max_body_bytes)

    def parse(model: Any, data: Any) -> Any:
        try:
            return model.model_validate(data)
        except ValidationError as e:
            detail = [
                {"loc": list(err["loc"]), "msg": err["msg"]} for err in e.errors(include_url=False)
            ]
            raise HTTPError(422, "request body does not match the schema", detail) from None

    root = getattr(settings.source, "root", None)

    async def load(rubric_id: str, version: str | None) -> tuple[Rubric, str | None]:
        try:
            return await settings.source.get(rubric_id, version)
        except RubricNotFoundError as e:
            raise HTTPError(404, str(e)) from None
        except RubricJudgeError as e:  # a file in the directory that does not load
            raise HTTPError(
                500, f"rubric {rubric_id!r} is invalid on the server: {_unplaced(e, root)}"
            ) from None

    def grader_for(rubric: Rubric, base: Any = None) -> Any:
        base = settings.grader if base is None else base
        if not rubric.hybrid_metrics:
            return base

        if isinstance(base, HybridGrader):
            return base
        return HybridGrader(base)

    async def grade(rubric: Rubric, item: BatchItem) -> dict[str, Any]:
        grader = grader_for(rubric)
        kwargs: dict[str, Any] = {
            "query": item.query,
            "reference_submission": item.reference,
            "item_id": item.id,
        }
        if rubric.hybrid_metrics:
            kwargs["references"] = item.references
            kwargs["fields"] = item.fields
        try:
            to_grade: Any = item.to_grade()  # a conversation's errors name its path: 422
            report = await grader.grade(rubric, to_grade, **kwargs)
        except UsageError as e:
            raise HTTPError(422, str(e)) from None
        except RunError as e:
            raise HTTPError(502, f"grading failed: {e}") from None
        result: dict[str, Any] = report.to_jsonable()
        return result

    def guarded(
        handler: Callable[[Request], Awaitable[Response]],
        protected: bool = True,
        token_in_url: bool = False,
    ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            if protected and not authorized(request, token_in_url):
                where = " or ?token=<token> in the URL" if token_in_url else ""
                return error(
                    401, f"missing or wrong bearer token (Authorization: Bearer <token>{where})"
                )
            try:
                return await handler(request)
            except HTTPError as e:
                return error(e.status, e.message, e.detail)
            except RubricJudgeError as e:
                return error(500, str(e))

        return endpoint

    async def health(request: Request) -> Response:
        # open to anyone: the kind of source, never the directory it is in
        return JSONResponse({"status": "ok", "source": settings.source.kind})

    async def within_deadline(work: Awaitable[Any]) -> Any:
        deadline = asyncio.timeout(settings.timeout_s)
        try:
            async with deadline:
                return await work
        except TimeoutError:
            if not deadline.expired():  # raised inside the grading, not by the deadline
                raise
            raise HTTPError(
                504,
                f"grading did not finish within {settings.timeout_s:g} s "
                "(the server's --timeout); the judge may be down or slow",
            ) from None

    async def openapi(request: Request) -> Response:
        return JSONResponse(openapi_document(settings))

    async def list_rubrics(request: Request) -> Response:
        infos = await settings.source.list()
        return JSONResponse({"rubrics": [i.as_dict() for i in infos]})

    async def get_rubric(request: Request) -> Response:
        rubric_id = str(request.path_params["rubric_id"])
        version = request.query_params.get("version")
        rubric, got = await load(rubric_id, version)
        return JSONResponse({"id": rubric_id, "version": got, "rubric": rubric.to_dict()})

    async def score(request: Request) -> Response:
        body = parse(ScoreRequest, await read_json(request))
        rubric, version = await load(body.rubric, body.version)
        report = await within_deadline(grade(rubric, body))
        return JSONResponse({"rubric": body.rubric, "version": version, "report": report})

    async def score_batch(request: Request) -> Response:
        data = await read_json(request)
        items = data.get("items") if isinstance(data, dict) else None
        if isinstance(items, list) and len(items) > settings.max_batch:
            raise HTTPError(
                422, f"batch has {len(items)} items; the limit is {settings.max_batch} per request"
            )
        body = parse(BatchRequest, data)
        rubric, version = await load(body.rubric, body.version)
        sem = asyncio.Semaphore(settings.concurrency)

        async def one(item: BatchItem) -> dict[str, Any]:
            async with sem:
                return await grade(rubric, item)

        results = await within_deadline(gather_all([one(item) for item in body.items]))
        return JSONResponse({"rubric": body.rubric, "version": version, "results": results})

    gate = asyncio.Semaphore(settings.concurrency)  # rollouts in flight, across all requests

    async def get_reward(request: Request) -> Response:
        data = await read_json(request)
        queries = data.get("query") if isinstance(data, dict) else None
        if isinstance(queries, list) and len(queries) > settings.max_batch:
            raise HTTPError(
                422,
                f"batch has {len(queries)} queries; the limit is {settings.max_batch} per request "
                "(the server's --max-batch)",
            )
        body = parse(RewardRequest, data)
        rubric_id = body.rubric or request.query_params.get("rubric") or settings.default_rubric
        if rubric_id is None:
            raise HTTPError(
                422,
                'name the rubric: ?rubric=ID in the URL or "rubric" in the body '
                "(or start the server with --rubric FILE)",
            )
        version = body.version or request.query_params.get("version")
        rubric, version = await load(rubric_id, version)

        work = grade_rewards(
            rubric,
            grader_for(rubric, settings.reward_grader),
            rollouts_of(body),
            concurrency=settings.concurrency,
            gate=gate,
        )
        try:
            batch = await within_deadline(work)
        except UsageError as e:
            raise HTTPError(422, str(e)) from None
        log.info("/get_reward %s: %s", rubric_id, batch.log_line())
        failure = batch.failure(settings.on_failure)
        if failure is not None:
            detail = {"failed": batch.failed, "errors": batch.errors, "usage": batch.usage()}
            raise HTTPError(502, f"grading failed: {failure}", detail)
        rewards = batch.rewards(settings.on_failure, settings.neutral_value)
        return JSONResponse(reply(batch, rewards, rubric_id, version))

    routes = [
        Route("/health", guarded(health, protected=False), methods=["GET"]),
        Route("/openapi.json", guarded(openapi, protected=False), methods=["GET"]),
        Route("/rubrics", guarded(list_rubrics), methods=["GET"]),
        Route("/rubrics/{rubric_id}", guarded(get_rubric), methods=["GET"]),
        Route("/score", guarded(score), methods=["POST"]),
        Route("/score/batch", guarded(score_batch), methods=["POST"]),
        Route("/get_reward", guarded(get_reward, token_in_url=True), methods=["POST"]),
    ]
    return Starlette(routes=routes)


def _unplaced(e: RubricJudgeError, root: Any) -> str:
    """What is wrong with a rubric, without where the server keeps it (clients see this)."""
    if isinstance(e, RubricError) and e.problems:
        return "; ".join(str(p) for p in e.problems)
    text = str(e)
    if root is not None:
        text = text.replace(f"{root}{os.sep}", "").replace(str(root), "<rubrics>")
    return text
