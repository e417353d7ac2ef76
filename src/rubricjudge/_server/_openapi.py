"""The scoring server's OpenAPI 3.1 description, written by hand."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._version import __version__
from ._rewards import reward_schemas

if TYPE_CHECKING:
    from ._settings import ServerSettings

__all__ = ["openapi_document"]

_STR = {"type": "string"}
_NULLABLE_STR = {"type": ["string", "null"]}


def _error(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }


def _schemas(max_batch: int) -> dict[str, Any]:
    item_props: dict[str, Any] = {
        "submission": {
            "description": "The text to grade, or its output and reasoning apart.",
            "oneOf": [_STR, {"$ref": "#/components/schemas/SubmissionParts"}],
        },
        "messages": {
            "description": (
                "A conversation to grade instead of 'submission': OpenAI chat messages "
                "(roles system/user/assistant/tool, tool_calls, tool_call_id) or Anthropic "
                "messages (tool_use / tool_result blocks)."
            ),
            "type": "array",
            "minItems": 1,
            "items": {"type": "object", "required": ["role"]},
        },
        "system": {
            "description": "Anthropic's top-level system prompt, with 'messages'.",
            "oneOf": [_STR, {"type": "array", "items": {"type": "object"}}],
        },
        "query": _NULLABLE_STR,
        "reference": {**_NULLABLE_STR, "description": "A reference answer."},
        "references": {"type": ["array", "null"], "items": _STR},
        "fields": {
            "type": ["object", "null"],
            "description": "Per-item values for hybrid metrics (config.reference_key).",
            "additionalProperties": {"oneOf": [_STR, {"type": "array", "items": _STR}]},
        },
        "id": {"type": ["string", "null"], "maxLength": 256},
    }
    rubric_ref = {
        "rubric": {"type": "string", "minLength": 1, "maxLength": 128, "description": "Rubric id."},
        "version": {"type": ["string", "null"], "maxLength": 64},
    }
    return {
        "SubmissionParts": {
            "type": "object",
            "properties": {"output": _STR, "thinking": _STR},
            "required": ["output"],
            "additionalProperties": False,
        },
        "BatchItem": {
            "type": "object",
            "properties": item_props,
            "oneOf": [{"required": ["submission"]}, {"required": ["messages"]}],
            "additionalProperties": False,
        },
        "ScoreRequest": {
            "type": "object",
            "properties": {**rubric_ref, **item_props},
            "required": ["rubric"],
            "oneOf": [{"required": ["submission"]}, {"required": ["messages"]}],
            "additionalProperties": False,
        },
        "BatchRequest": {
            "type": "object",
            "properties": {
                **rubric_ref,
                "items": {
                    "type": "array",
                    "items": {"$ref": "#/components/schemas/BatchItem"},
                    "minItems": 1,
                    "maxItems": max_batch,
                },
            },
            "required": ["rubric", "items"],
            "additionalProperties": False,
        },
        "EvaluationReport": {
            "type": "object",
            "description": "rubricjudge's EvaluationReport as JSON (None fields left out).",
            "properties": {
                "score": {"type": ["number", "null"]},
                "raw_score": {"type": "number"},
                "overall_score": {"type": "number"},
                "scaled_score": {"type": "number"},
                "llm_score": {"type": "number"},
                "passed": {"type": "boolean"},
                "partial": {
                    "type": "boolean",
                    "description": "true when score is the floor over the decided criteria "
                    "(serve --judge-failure partial): the judge failed on others",
                },
                "error": _STR,
                "error_count": {"type": "integer"},
                "report": {"type": "array", "items": {"type": "object"}},
                "metrics": {"type": "array", "items": {"type": "object"}},
            },
            "required": ["score"],
        },
        "ScoreResponse": {
            "type": "object",
            "properties": {
                "rubric": _STR,
                "version": _NULLABLE_STR,
                "report": {"$ref": "#/components/schemas/EvaluationReport"},
            },
            "required": ["rubric", "report"],
        },
        "BatchResponse": {
            "type": "object",
            "properties": {
                "rubric": _STR,
                "version": _NULLABLE_STR,
                "results": {
                    "type": "array",
                    "items": {"$ref": "#/components/schemas/EvaluationReport"},
                },
            },
            "required": ["rubric", "results"],
        },
        "RubricInfo": {
            "type": "object",
            "properties": {
                "id": _STR,
                "name": _NULLABLE_STR,
                "version": _NULLABLE_STR,
                "description": _NULLABLE_STR,
                "criteria": {"type": "integer"},
            },
            "required": ["id", "criteria"],
        },
        "Error": {
            "type": "object",
            "properties": {"error": _STR, "detail": {}},
            "required": ["error"],
        },
    }


def _json_body(ref: str) -> dict[str, Any]:
    return {
        "required": True,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{ref}"}}},
    }


def _ok(ref: str, description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{ref}"}}},
    }


def openapi_document(settings: ServerSettings) -> dict[str, Any]:
    """The OpenAPI 3.1 document describing the server built with ``settings``."""
    secured: list[dict[str, list[str]]] = [{"bearer": []}] if settings.token else []
    limits = (
        f"Bodies are at most {settings.max_body_bytes} bytes (413 above); a batch holds at "
        f"most {settings.max_batch} items (422 above); grading one request may take "
        f"{settings.timeout_s:g} s (504 above)."
    )
    common = {
        "400": _error("The body is not valid JSON, or nests or counts beyond the bounds."),
        "401": _error("Missing or wrong bearer token."),
        "404": _error("No rubric with that id."),
        "413": _error("The body is too large."),
        "422": _error("The body does not match the schema, or the batch is too large."),
        "504": _error("Grading did not finish within the server's time limit."),
    }
    rubric_id = {"name": "rubric_id", "in": "path", "required": True, "schema": _STR}
    version = {"name": "version", "in": "query", "required": False, "schema": _STR}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "rubricjudge scoring server",
            "version": __version__,
            "description": "Score submissions against rubrics the server holds. " + limits,
        },
        "components": {
            "schemas": {**_schemas(settings.max_batch), **reward_schemas()},
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "paths": {
            "/health": {
                "get": {
                    "summary": "Liveness check (no token needed).",
                    "security": [],
                    "responses": {
                        "200": {
                            "description": "The server is up; `source` is the kind of "
                            "rubric source (directory or registry), never its path."
                        }
                    },
                }
            },
            "/openapi.json": {
                "get": {
                    "summary": "This document (no token needed).",
                    "security": [],
                    "responses": {"200": {"description": "The OpenAPI document."}},
                }
            },
            "/rubrics": {
                "get": {
                    "summary": "List the rubrics the server holds.",
                    "security": secured,
                    "responses": {
                        "200": {
                            "description": "The rubrics.",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {
                                            "rubrics": {
                                                "type": "array",
                                                "items": {
                                                    "$ref": "#/components/schemas/RubricInfo"
                                                },
                                            }
                                        },
                                    }
                                }
                            },
                        },
                        "401": common["401"],
                    },
                }
            },
            "/rubrics/{rubric_id}": {
                "get": {
                    "summary": "One rubric, in rubricjudge's native format.",
                    "security": secured,
                    "parameters": [rubric_id, version],
                    "responses": {
                        "200": {"description": "The rubric as {id, version, rubric}."},
                        "401": common["401"],
                        "404": common["404"],
                    },
                }
            },
            "/score": {
                "post": {
                    "summary": "Score one submission.",
                    "security": secured,
                    "requestBody": _json_body("ScoreRequest"),
                    "responses": {"200": _ok("ScoreResponse", "The report."), **common},
                }
            },
            "/score/batch": {
                "post": {
                    "summary": "Score several submissions against one rubric.",
                    "security": secured,
                    "requestBody": _json_body("BatchRequest"),
                    "responses": {"200": _ok("BatchResponse", "One report per item."), **common},
                }
            },
            "/get_reward": {
                "post": {
                    "summary": "OpenRLHF's remote reward model protocol: one reward per query, "
                    "in order (the token may also be ?token= in the URL; the rubric ?rubric=).",
                    "security": secured,
                    "requestBody": _json_body("RewardRequest"),
                    "responses": {
                        "200": _ok("RewardResponse", "Rewards, flags and the batch's usage."),
                        **common,
                        "502": _error(
                            "Rollouts failed and the failure policy is error, or all did."
                        ),
                    },
                }
            },
        },
    }
