"""The labelling page's server: a Starlette app over one dataset file.

``GET /`` is the page; its script uses ``GET /api/next``, ``GET /api/items/{id}``
and ``POST /api/labels`` (see docs/labelling.md for the bodies). A POST is answered
200 only once its labels are on disk. Bodies are at most ``max_body_bytes`` and are
checked strictly (422 with a message for an unknown criterion or label, 404 for
an unknown item). With a token every ``/api/`` request needs ``Authorization:
Bearer``; without one (loopback only) requests must name this server in ``Host``
(and ``Origin``, when a browser sends one), so another web site open in the same
browser cannot read or write labels through it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .._errors import LabelError, RubricJudgeError, UnknownItem, missing_extra
from .._server._requests import HTTPError, bearer_ok, read_json
from ._file import DatasetFile
from ._judged import Judged
from ._page import page_headers, render_page
from ._payload import item_payload
from ._progress import done_by, progress
from ._store import LabelStore

__all__ = ["LabelSettings", "create_app"]

MAX_BODY_BYTES = 64 * 1024
MAX_LABEL_CHARS = 256
MAX_SKIP = 1000


class LabelsRequest(BaseModel):
    """``POST /api/labels``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    item_id: str = Field(min_length=1, max_length=512)
    labels: dict[str, str | None] = Field(min_length=1, max_length=256)


@dataclass
class LabelSettings:
    """What the labelling server serves, for whom, and how."""

    store: LabelStore
    order: list[int]
    labeller: str
    judged: list[dict[str, Judged]] | None = None
    show_judge: bool = False
    token: str | None = None
    hosts: set[str] | None = None  # accepted Host values when there is no token
    max_body_bytes: int = MAX_BODY_BYTES
    order_name: str = "random"
    _done: tuple[DatasetFile, set[int]] | None = field(default=None, repr=False)

    def done(self, file: DatasetFile) -> set[int]:
        """The items this labeller has finished (cached per version of the file)."""
        if self._done is None or self._done[0] is not file:
            self._done = (file, done_by(file, self.labeller))
        return self._done[1]


def _starlette() -> None:
    try:
        import starlette  # noqa: F401
    except ImportError:
        raise missing_extra("label", "the labelling page needs starlette and uvicorn") from None


def create_app(settings: LabelSettings) -> Any:
    """Build the Starlette application for ``settings``."""
    _starlette()
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    store = settings.store
    position = {index: k for k, index in enumerate(settings.order)}

    def error(status: int, message: str, detail: Any = None) -> Response:
        body: dict[str, Any] = {"error": message}
        if detail is not None:
            body["detail"] = detail
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
        return JSONResponse(body, status_code=status, headers=headers)

    def allowed(request: Request) -> None:
        if settings.token is not None:
            if not bearer_ok(request.headers.get("authorization", ""), settings.token):
                raise HTTPError(401, "missing or wrong token (Authorization: Bearer <token>)")
            return
        # host names are case-insensitive (RFC 9110): LOCALHOST is localhost
        hosts = {h.lower() for h in settings.hosts or set()}
        if request.headers.get("host", "").lower() not in hosts:
            raise HTTPError(403, "this server answers only requests addressed to it by name")
        origin = request.headers.get("origin")
        if origin is not None and origin.lower().removeprefix("http://") not in hosts:
            raise HTTPError(403, "requests from other web sites are refused")

    def guarded(
        handler: Callable[[Request], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                allowed(request)
                return await handler(request)
            except HTTPError as e:
                return error(e.status, e.message, e.detail)
            except UnknownItem as e:
                return error(404, str(e))
            except LabelError as e:
                return error(422, str(e))
            except RubricJudgeError as e:
                return error(500, str(e))

        return endpoint

    def with_progress(body: dict[str, Any], file: DatasetFile) -> dict[str, Any]:
        body.update(progress(file, settings.done(file)).to_data())
        body["labeller"] = settings.labeller
        body["order"] = settings.order_name
        return body

    def payload(file: DatasetFile, index: int, *, complete: bool) -> dict[str, Any]:
        judged = settings.judged[index] if settings.judged is not None else None
        body = item_payload(
            file, index, settings.labeller, judged, reveal=settings.show_judge or complete
        )
        body["position"] = position.get(index, 0) + 1
        return with_progress(body, file)

    async def page(request: Request) -> Response:
        try:
            allowed(request)
        except HTTPError as e:
            if e.status == 403:
                return error(e.status, e.message)
        return Response(render_page(), media_type="text/html", headers=page_headers())

    def skip_list(request: Request) -> set[str]:
        # one skip= per id (decoded each on its own: an id may hold a comma)
        ids = [s for s in request.query_params.getlist("skip") if s][:MAX_SKIP]
        return set(ids)

    async def next_item(request: Request) -> Response:
        skip = skip_list(request)
        file = await asyncio.to_thread(store.current)
        done = settings.done(file)
        for index in settings.order:
            if index in done:
                continue
            if store.key_at(file, index) in skip:
                continue
            return JSONResponse(payload(file, index, complete=False))
        empty: dict[str, Any] = {"item_id": None, "query": None, "submission": None, "criteria": []}
        return JSONResponse(with_progress(empty, file))

    async def get_item(request: Request) -> Response:
        file = await asyncio.to_thread(store.current)
        index = store.index_in(file, str(request.path_params["item_id"]))
        return JSONResponse(payload(file, index, complete=index in settings.done(file)))

    async def post_labels(request: Request) -> Response:
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise HTTPError(415, "send the labels as JSON (Content-Type: application/json)")
        data = await read_json(request, settings.max_body_bytes)
        try:
            body = LabelsRequest.model_validate(data)
        except ValidationError as e:
            detail = [
                {"loc": list(err["loc"]), "msg": err["msg"]} for err in e.errors(include_url=False)
            ]
            raise HTTPError(422, "request body does not match the schema", detail) from None
        for name, value in body.labels.items():
            if len(name) > MAX_LABEL_CHARS or (value is not None and len(value) > MAX_LABEL_CHARS):
                raise HTTPError(422, f"a criterion name or label is over {MAX_LABEL_CHARS} chars")
        applied = await asyncio.to_thread(store.apply, body.item_id, body.labels, settings.labeller)
        file = applied.file
        index = store.index_in(file, body.item_id)
        complete = index in settings.done(file)
        out = payload(file, index, complete=complete)
        out["saved"] = applied.labels
        out["complete"] = complete
        return JSONResponse(out)

    routes = [
        Route("/", page, methods=["GET"]),
        Route("/api/next", guarded(next_item), methods=["GET"]),
        Route("/api/items/{item_id:path}", guarded(get_item), methods=["GET"]),
        Route("/api/labels", guarded(post_labels), methods=["POST"]),
    ]
    return Starlette(routes=routes)
