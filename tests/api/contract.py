"""Validate recorded answers against the API document strictly (issue 49): the operation
must declare the status, the media type and every header of ours the answer carries, and the
body must validate against the declared schema with unknown members refused (every object
schema of the document is closed: ``closed_everywhere``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import jsonschema_rs
from multidict import CIMultiDict

__all__ = [
    "OUR_HEADERS",
    "Recorded",
    "Recorder",
    "closed_everywhere",
    "find_operation",
    "violations",
]

#: the response headers the engine sets itself: each must be declared where it is sent
OUR_HEADERS = (
    "ETag",
    "Location",
    "Retry-After",
    "Allow",
    "Hookproof-Write-Position",
    "Cache-Control",
)


@dataclass
class Recorded:
    method: str
    path: str
    status: int
    headers: CIMultiDict[str]
    media: str
    body: Any
    #: what the scenario meant by it (in a failure's message)
    note: str = ""


@dataclass
class Recorder:
    """A JSON client of one engine that keeps every answer it got."""

    http: aiohttp.ClientSession
    base: str
    token: str | None = None
    seen: list[Recorded] = field(default_factory=list)

    async def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        headers: dict[str, str] | None = None,
        data: bytes | None = None,
        note: str = "",
    ) -> Recorded:
        h = dict(headers or {})
        bearer = token if token is not None else self.token
        if bearer:
            h["Authorization"] = f"Bearer {bearer}"
        async with self.http.request(
            method, self.base + path, json=body, data=data, headers=h
        ) as r:
            raw = await r.read()
            media = r.content_type
            parsed: Any = raw.decode(errors="replace")
            if raw and "json" in media:
                parsed = await r.json(content_type=None)
            elif not raw:
                parsed = None
            rec = Recorded(
                method, path.split("?")[0], r.status, CIMultiDict(r.headers), media, parsed
            )
            rec.note = note
            self.seen.append(rec)
            return rec


def _template_regex(template: str, operation: dict[str, Any]) -> re.Pattern[str]:
    out = "^"
    for part in re.split(r"(\{[^}]+\})", template):
        out += "[^/]+" if part.startswith("{") else re.escape(part)
    return re.compile(out + "$")


def find_operation(doc: dict[str, Any], method: str, path: str) -> tuple[str, dict[str, Any]]:
    """The document's (template, operation) for a concrete path; literal templates first."""
    found = [
        (template, ops[method.lower()])
        for template, ops in doc["paths"].items()
        if method.lower() in ops and _template_regex(template, ops[method.lower()]).match(path)
    ]
    if not found:
        raise LookupError(f"{method} {path}: no operation in the document")
    found.sort(key=lambda t: t[0].count("{"))
    return found[0]


def _resolve(doc: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[1]
        kind = node["$ref"].split("/")[2]
        node = doc["components"][kind][name]
    return node


def violations(doc: dict[str, Any], rec: Recorded) -> list[str]:
    """What in *rec* the document does not say (empty: it conforms)."""
    where = f"{rec.method} {rec.path} -> {rec.status} ({rec.note})"
    try:
        template, op = find_operation(doc, rec.method, rec.path)
    except LookupError as exc:
        if rec.status != 405:
            return [str(exc)]
        # a method the path does not take: the shared 405 (with Allow)
        op = {"responses": {"405": {"$ref": "#/components/responses/Problem405"}}}
    declared = op["responses"].get(str(rec.status))
    if declared is None:
        return [f"{where}: status not declared (has {sorted(op['responses'])})"]
    response = _resolve(doc, declared)
    out = []
    lower = {k.lower(): v for k, v in rec.headers.items()}
    named = {k.lower() for k in response.get("headers", {})}
    for header in OUR_HEADERS:
        if header.lower() in lower and header.lower() not in named:
            out.append(f"{where}: header {header} sent, not declared")
    for name, spec in response.get("headers", {}).items():
        if _resolve(doc, spec).get("required") and name.lower() not in lower:
            out.append(f"{where}: required header {name} missing")
    content = response.get("content")
    if rec.body in (None, "") and not content:
        return out
    if not content:
        return [*out, f"{where}: a body ({rec.media}) where none is declared"]
    media = content.get(rec.media)
    if media is None:
        return [*out, f"{where}: media type {rec.media} not declared (has {sorted(content)})"]
    if "json" not in rec.media:
        return out
    schema = {**media["schema"], "components": doc["components"]}
    validator = jsonschema_rs.validator_for(schema)
    for error in validator.iter_errors(rec.body):
        out.append(f"{where}: {error.message} at {list(error.instance_path)}")
    if rec.status >= 400:
        codes = response.get("x-problem-codes")
        if codes is None:
            out.append(f"{where}: no x-problem-codes on the response")
        elif isinstance(rec.body, dict) and rec.body.get("code") not in codes:
            out.append(f"{where}: code {rec.body.get('code')!r} not among {codes}")
    return out


def closed_everywhere(node: Any, at: str = "#") -> list[str]:
    """Every object schema with ``properties`` that leaves other members open, and every bare
    ``{"type": "object"}`` (a map must say what its values are)."""
    out: list[str] = []
    if isinstance(node, dict):
        if node.get("type") == "object" or "properties" in node:
            if (
                "properties" in node
                and "additionalProperties" not in node
                and not node.get("x-open")
            ):
                out.append(at)
            elif (
                "properties" not in node
                and "additionalProperties" not in node
                and not (node.get("x-open") or "oneOf" in node or "anyOf" in node or "$ref" in node)
            ):
                out.append(at + " (bare object)")
        for key, value in node.items():
            out += closed_everywhere(value, f"{at}/{key}")
    elif isinstance(node, list):
        for n, value in enumerate(node):
            out += closed_everywhere(value, f"{at}/{n}")
    return out
