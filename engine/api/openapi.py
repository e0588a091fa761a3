"""The OpenAPI 3.1 document, generated: request and response schemas from the msgspec types
the handlers decode and encode (``msgspec.json.schema_components``), parameters from the table
the API checks them with (``params.QUERY``, ``params.path_format``), operations from
``operations.OPERATIONS``. A field added to a type, or a parameter to the table, is in the
document with nothing else to change. Every object schema is closed, headers and problem codes
are declared: how a new route declares its answers strictly is ``openapi_parts``' docstring."""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

import msgspec
from aiohttp import web

from hookproof.schemas import api as api_in
from hookproof.schemas import api_out
from hookproof.schemas import search as api_search

from ..delivery.recover import recoverable_states
from ..destinations.registry import installed
from ..relay import protocol as relay_protocol
from .filter_schema import declare_filters
from .kind_schema import declare_kinds
from .openapi_parts import (
    HEADERS,
    close_objects,
    defaults_documented,
    success_headers,
    tags_of,
)
from .operations import EXAMPLES, OPERATIONS
from .params import QUERY, path_format
from .problem_codes import PROBLEM_CODES

__all__ = ["OPERATIONS", "openapi_document", "operation_id"]

#: every type named by the table, by its schema name
_TYPES: dict[str, Any] = {
    name: getattr(module, name)
    for module in (api_in, api_out, api_search)
    for name in module.__all__
    if isinstance(getattr(module, name), type) and issubclass(getattr(module, name), msgspec.Struct)
}

#: what each problem status means (its codes: ``problem_codes.PROBLEM_CODES``)
_PROBLEM_MEANING: dict[int, str] = {
    400: "the request is malformed or a value is outside its schema (``field`` names it)",
    401: "no valid token",
    403: "a valid token of the wrong kind, or outside a portal session's scope",
    404: "no such resource of the caller's (another tenant's is not found either)",
    405: "the path does not take this method (``Allow`` lists the ones it takes)",
    408: "the body came too slowly",
    409: "the request conflicts with the resource's state",
    412: "If-Match is not the current generation or version",
    413: "the body is too large",
    414: "the request line is over 8,190 bytes",
    415: "a Content-Encoding or media type the API does not take",
    422: "well-formed but refused as a whole",
    428: "If-Match is required",
    429: "the caller's budget is spent (``Retry-After`` says when to come back)",
    431: "a header is over 8,190 bytes or there are over 128 of them",
    503: "the database is unavailable (``Retry-After`` says when to come back)",
}


#: the frames of a relay session (``GET /v1/relay/{id}``, ``schemas/relay.md``)
_RELAY_FRAMES: list[Any] = [
    relay_protocol.RelayAttached,
    relay_protocol.RelayRequest,
    relay_protocol.RelayReplaced,
    relay_protocol.RelayReport,
]


def operation_id(method: str, path: str) -> str:
    return method + "_" + re.sub(r"[^A-Za-z0-9]+", "_", path).strip("_")


def _tag(path: str) -> str:
    """The resource an operation belongs to (a generated client's module): ``subscriptions``,
    ``events``, ``deliveries``..., ``engine`` for the rest."""
    parts = path.strip("/").split("/")
    if parts[0] == "v1" and len(parts) > 1:
        return {"dead-letters": "deliveries", "attempt-stats": "subscriptions"}.get(
            parts[1], parts[1]
        )
    return "console" if parts[0] == "console" else "engine"


def _registered(app: web.Application) -> set[tuple[str, str]]:
    out = set()
    for route in app.router.routes():
        info = route.resource.get_info() if route.resource else {}
        path = info.get("path") or info.get("formatter")
        if path and route.method != "HEAD":
            out.add((route.method.lower(), path))
    return out


def _problem(status: int) -> dict[str, Any]:
    return {"$ref": f"#/components/responses/Problem{status}"}


def _parameters(method: str, path: str, op: dict[str, Any]) -> list[dict[str, Any]]:
    params: list[dict[str, Any]] = [
        {
            "name": name,
            "in": "path",
            "required": True,
            "schema": {"type": "string", "pattern": path_format(path).pattern},
        }
        for name in re.findall(r"\{([^}]+)\}", path)
    ]
    for name, param in QUERY.get((method.upper(), path), {}).items():
        entry: dict[str, Any] = {
            "name": name,
            "in": "query",
            "required": param.required,
            "schema": param.schema,
            "description": f"outside its schema: 400 {param.code}",
        }
        if param.schema.get("format") == "date-time":
            entry["description"] = (
                "an RFC 3339 time with an offset; an offset without its colon (+0000, as "
                f"strftime %z writes it) is taken too. Otherwise: 400 {param.code}"
            )
        if param.schema.get("type") == "array":
            entry.update(style="form", explode=True)
        params.append(entry)
    if op.get("ifMatch"):  # True: required (absent: 428); "optional": checked when sent
        required = op["ifMatch"] is True
        params.append(
            {
                "name": "If-Match",
                "in": "header",
                "required": required,
                "description": 'the generation or version read, "<n>" (its ETag); '
                + ("absent: 428" if required else "absent: no check; another: 412"),
                "schema": {"type": "string", "pattern": '^(W/)?"?[0-9]{1,9}"?$'},
            }
        )
    return params


def _success(method: str, op: dict[str, Any]) -> dict[str, Any]:
    status = op.get("status", 200)
    if status == 204:
        headers = success_headers(method, op)
        return {"description": "Done (no body)", **({"headers": headers} if headers else {})}
    mime = op.get("mime") or ("text/plain" if op.get("text") else None)
    if mime and mime != "application/jwk-set+json":
        return {
            "description": "Success",
            "content": {mime: {"schema": {"type": "string"}}},
            **({"headers": h} if (h := success_headers(method, op)) else {}),
        }
    if op.get("websocket"):  # replaced by the 101 of ``_operation``
        return {"description": "Switching Protocols (WebSocket)"}
    if "response" in op:
        schema: dict[str, Any] = {"$ref": f"#/components/schemas/{op['response']}"}
    else:  # a whole document of its own format (every other success names its type)
        schema = {"type": "object", "description": op["document"]}
    out: dict[str, Any] = {
        "description": "Success",
        "content": {mime or "application/json": {"schema": schema}},
    }
    if headers := success_headers(method, op):
        out["headers"] = headers
    if "links" in op:
        out["links"] = op["links"]
    return out


def _operation(method: str, path: str, op: dict[str, Any]) -> dict[str, Any]:
    params = _parameters(method, path, op)
    statuses = {405, 414, 431, 503}  # every route: the request's edges (engine/api/edges.py)
    if not op.get("public"):
        statuses |= {401, 403}
    if params or "body" in op or op.get("rawBody"):
        statuses.add(400)
    if "{" in path or not op.get("public"):
        statuses.add(404)
    if method in ("post", "put", "patch", "delete") and not op.get("public"):
        statuses |= {409, 412, 422}
    if "body" in op or op.get("rawBody") or method in ("post", "put", "patch"):
        statuses |= {408, 413, 415}
    if op.get("ifMatch") is True:
        statuses |= {412, 428}
    statuses |= set(op.get("refusals", ()))
    responses: dict[str, Any] = {str(op.get("status", 200)): _success(method, op)}
    for also in op.get("also", ()):  # another success (a receipt sent again: 200)
        responses[str(also)] = _success(method, op)
    for other, name in op.get("otherSuccess", {}).items():  # a success of another shape
        responses[str(other)] = _success(method, {**op, "status": other, "response": name})
    if op.get("mime") == "application/jwk-set+json":
        responses["304"] = {
            "description": "Not modified (If-None-Match matched the ETag)",
            "headers": success_headers(method, op),
        }
    responses.update({str(s): _problem(s) for s in sorted(statuses)})
    entry: dict[str, Any] = {
        "summary": op["summary"],
        "description": op.get("description", op["summary"]),
        "operationId": operation_id(method, path),
        "tags": [_tag(path)],
        "parameters": params,
        "responses": responses,
        # a public route says so: no token (an empty requirement list)
        "security": [] if op.get("public") else [{"bearer": []}],
    }
    if "body" in op:
        media: dict[str, Any] = {"schema": {"$ref": f"#/components/schemas/{op['body']}"}}
        if op["body"] in EXAMPLES:
            media["example"] = EXAMPLES[op["body"]]
        entry["requestBody"] = {
            "required": not op.get("optionalBody"),
            "content": {"application/json": media},
        }
        if "bodyDescription" in op:
            entry["requestBody"]["description"] = op["bodyDescription"]
        entry["requestBody"].update(op.get("bodyExtension", {}))
    elif isinstance(op.get("rawBody"), str):  # a body checked against a schema file
        entry["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": _schema_file(op["rawBody"])}},
        }
    elif op.get("rawBody"):
        entry["requestBody"] = {
            "required": True,
            "description": "signed under hookproof.receipt.v1 (Content-Digest, Signature-Input "
            "and Signature headers; schemas/receipt.md)",
            "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/ApplicationReceipt"}}
            },
        }
    if op.get("websocket"):  # OpenAPI has no WebSocket: the frames, by reference
        entry["responses"]["101"] = {"description": "Switching Protocols (WebSocket)"}
        entry["x-websocket"] = {
            "document": "schemas/relay.md",
            "toClient": [
                {"$ref": f"#/components/schemas/{t.__name__}"}
                for t in _RELAY_FRAMES
                if t is not relay_protocol.RelayReport
            ],
            "toEngine": [{"$ref": "#/components/schemas/RelayReport"}],
        }
    return entry


def _schema_file(name: str) -> dict[str, Any]:
    """A JSON Schema shipped in ``schemas/`` (without its ``$schema`` and ``$id``)."""
    text = resources.files("hookproof.schemas").joinpath(name)
    schema: dict[str, Any] = json.loads(text.read_text())
    return {k: v for k, v in schema.items() if k not in ("$schema", "$id")}


def _receipt_schema() -> dict[str, Any]:
    """The receipt body's JSON Schema, as the receipt service validates it (one file)."""
    text = resources.files("hookproof.schemas").joinpath("application-receipt.v1.schema.json")
    schema: dict[str, Any] = json.loads(text.read_text())
    return {k: v for k, v in schema.items() if k not in ("$schema", "$id")}


def _components() -> dict[str, Any]:
    named = sorted({op[k] for op in OPERATIONS.values() for k in ("body", "response") if k in op})
    named = sorted(
        {*named, *(n for op in OPERATIONS.values() for n in op.get("otherSuccess", {}).values())}
    )
    _, schemas = msgspec.json.schema_components(
        [_TYPES[n] for n in named] + [api_out.Problem] + _RELAY_FRAMES,
        ref_template="#/components/schemas/{name}",
    )
    for name, schema in schemas.items():  # what a type declares beyond its fields
        extra = getattr(_TYPES.get(name), "__json_schema_extra__", None) or {}
        for key, value in extra.items():
            if key == "required":
                value = sorted(set(schema.get("required", ())) | set(value))
            schema[key] = value
    schemas["ApplicationReceipt"] = _receipt_schema()
    schemas["CloudEventIn"] = _schema_file("cloudevent-in.v1.schema.json")
    declare_filters(schemas)
    states = schemas["RecoverIn"]["properties"]["states"]["anyOf"][0]["items"]
    states["enum"] = sorted(recoverable_states())  # the ledger's replay rule, not a copy
    responses = {}
    for status, meaning in _PROBLEM_MEANING.items():
        response: dict[str, Any] = {
            "description": f"Problem (RFC 9457): {meaning}",
            "content": {
                "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}
            },
            "x-problem-codes": list(PROBLEM_CODES[status]),
        }
        if status == 405:
            response["headers"] = {"Allow": {"$ref": "#/components/headers/Allow"}}
        if status in (429, 503):
            response["headers"] = {"Retry-After": {"$ref": "#/components/headers/Retry-After"}}
        responses[f"Problem{status}"] = response
    return {
        "schemas": close_objects(defaults_documented(schemas)),
        "responses": responses,
        "headers": HEADERS,
        "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
    }


def openapi_document(app: web.Application | None = None) -> dict[str, Any]:
    """Only operations the running app actually routes are described."""
    live = _registered(app) if app is not None else set(OPERATIONS)
    components = _components()
    if app is not None:  # as served: the kinds this engine has installed (the SDKs: built-in)
        declare_kinds(components["schemas"], installed())
    paths: dict[str, Any] = {}
    for (method, path), op in OPERATIONS.items():
        if (method, path) in live:
            paths.setdefault(path, {})[method] = _operation(method, path, op)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "hookproof",
            "version": "0.1.0",
            "description": "The webhook delivery engine's API (DESIGN.md section 11): every "
            "answer, header and problem code it can send.",
            "license": {"name": "Apache-2.0", "identifier": "Apache-2.0"},
            "contact": {"name": "hookproof", "url": "https://hookproof.dev"},
        },
        "servers": [{"url": "/"}],
        "tags": tags_of({op["tags"][0] for ops in paths.values() for op in ops.values()}),
        "paths": paths,
        "components": components,
    }
