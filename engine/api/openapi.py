"""The OpenAPI 3.1 document, generated: request and response schemas from the msgspec types
the handlers decode and encode (``msgspec.json.schema_components``), parameters from the table
the API checks them with (``params.QUERY``, ``params.path_format``), operations from
``operations.OPERATIONS``. A field added to a type, or a parameter to the table, is in the
document with nothing else to change."""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

import msgspec
from aiohttp import web

from hookproof.schemas import api as api_in
from hookproof.schemas import api_out

from ..relay import protocol as relay_protocol
from .filter_schema import declare_filters
from .operations import EXAMPLES, OPERATIONS
from .params import QUERY, path_format

__all__ = ["OPERATIONS", "openapi_document", "operation_id"]

#: every type named by the table, by its schema name
_TYPES: dict[str, Any] = {
    name: getattr(module, name)
    for module in (api_in, api_out)
    for name in module.__all__
    if isinstance(getattr(module, name), type) and issubclass(getattr(module, name), msgspec.Struct)
}

_PROBLEM_CODES: dict[int, str] = {
    400: "invalid_request, invalid_json, invalid_id, invalid_limit, invalid_cursor, "
    "invalid_state, invalid_time, invalid_query, invalid_data, json_too_deep, "
    "number_out_of_range (a number outside its field's minimum..maximum), ...",
    401: "missing_token, invalid_token, portal_session_expired",
    403: "operator_only (a tenant token on an operator route), tenant_only (the operator "
    "token on a tenant route), portal_scope (a portal token outside its scope), "
    "admin_disabled, metrics_disabled",
    404: "not_found, subscription_not_found, delivery_not_found, event_not_found, "
    "consumer_not_found, rollout_not_found, portal_session_not_found, ...",
    405: "method_not_allowed (the Allow header lists the methods the path takes)",
    408: "body_timeout (the body came too slowly)",
    409: "conflicts: event_payload_conflict, version_conflict, consumer_exists, ...",
    412: "precondition_failed (If-Match is not the current generation or version)",
    413: "body_too_large",
    414: "uri_too_long (the request line is over 8,190 bytes)",
    415: "unsupported_encoding (a Content-Encoding the API does not take), unsupported_media_type",
    422: "the request is well-formed but refused as a whole (e.g. a rollout that cannot start)",
    428: "if_match_required",
    429: "rate_limited (the caller's budget is spent; Retry-After says when to come back)",
    431: "header_too_large (a header name or value over 8,190 bytes), too_many_headers (over 128)",
    503: "database_unavailable (Retry-After says when to come back)",
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
        if param.schema.get("type") == "array":
            entry.update(style="form", explode=True)
        params.append(entry)
    if op.get("ifMatch"):
        params.append(
            {
                "name": "If-Match",
                "in": "header",
                "required": True,
                "description": 'the generation read, "<n>" (its ETag); absent: 428',
                "schema": {"type": "string", "pattern": '^(W/)?"?[0-9]{1,9}"?$'},
            }
        )
    return params


def _success(op: dict[str, Any]) -> dict[str, Any]:
    status = op.get("status", 200)
    if status == 204:
        return {"description": "Done (no body)"}
    mime = op.get("mime") or ("text/plain" if op.get("text") else None)
    if mime and mime != "application/jwk-set+json":
        return {"description": "Success", "content": {mime: {"schema": {"type": "string"}}}}
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
    if op.get("ifMatch"):
        statuses |= {412, 428}
    statuses |= set(op.get("refusals", ()))
    responses: dict[str, Any] = {str(op.get("status", 200)): _success(op)}
    for also in op.get("also", ()):  # another success (a receipt sent again: 200)
        responses[str(also)] = _success(op)
    if op.get("mime") == "application/jwk-set+json":
        responses["304"] = {"description": "Not modified (If-None-Match matched the ETag)"}
    responses.update({str(s): _problem(s) for s in sorted(statuses)})
    entry: dict[str, Any] = {
        "summary": op["summary"],
        "operationId": operation_id(method, path),
        "tags": [_tag(path)],
        "parameters": params,
        "responses": responses,
    }
    if not op.get("public"):
        entry["security"] = [{"bearer": []}]
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
    _, schemas = msgspec.json.schema_components(
        [_TYPES[n] for n in named] + [api_out.Problem] + _RELAY_FRAMES,
        ref_template="#/components/schemas/{name}",
    )
    schemas["ApplicationReceipt"] = _receipt_schema()
    schemas["CloudEventIn"] = _schema_file("cloudevent-in.v1.schema.json")
    declare_filters(schemas)
    responses = {}
    for status, codes in _PROBLEM_CODES.items():
        response: dict[str, Any] = {
            "description": f"Problem (RFC 9457); code: {codes}",
            "content": {
                "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}
            },
        }
        if status == 405:
            response["headers"] = {
                "Allow": {"required": True, "schema": {"type": "string"}},
            }
        if status in (429, 503):
            response["headers"] = {"Retry-After": {"schema": {"type": "string"}}}
        responses[f"Problem{status}"] = response
    return {
        "schemas": schemas,
        "responses": responses,
        "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
    }


def openapi_document(app: web.Application | None = None) -> dict[str, Any]:
    """Only operations the running app actually routes are described."""
    live = _registered(app) if app is not None else set(OPERATIONS)
    paths: dict[str, Any] = {}
    for (method, path), op in OPERATIONS.items():
        if (method, path) in live:
            paths.setdefault(path, {})[method] = _operation(method, path, op)
    return {
        "openapi": "3.1.0",
        "info": {"title": "hookproof", "version": "0.1.0"},
        "paths": paths,
        "components": _components(),
    }
