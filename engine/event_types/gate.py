"""Ingest's schema gate: judge payloads of typed topics against the current definition.

Compiled validators are kept per worker by (tenant, topic) with the stream version they were
compiled from. Every judgement reads the (tenant, topic) rows inside ingest's own group
transaction, passing the versions it holds: a row at another version comes back with its
definition and is compiled again. So no worker ever judges by a definition older than the one
committed before its transaction began, whichever worker or process wrote it; there is no
invalidation message to lose. One statement per group; nothing for untyped topics.

Inside the transaction only cheap verdicts are reached (an undeclared version, a payload
priced past the work bound, a validation priced within ``SchemaValidator.inline_work``:
microseconds for ordinary payloads). A dearer payload is *deferred*: ingest commits the rest
of the group, validates it off the loop (``offload``) with no transaction open, and commits it
in a transaction of its own, where the verdict counts only if its definition's version still
holds (``verdicts``); otherwise it is judged again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
import structlog

from hookproof.errors import HookproofError

from ..common.memo import BoundedMemo
from .errors import (
    EventVersionUndeclared,
    PayloadSchemaInvalid,
    PayloadTooComplex,
    SchemaInvalid,
)
from .limits import MAX_WORK, Compiled, compile_schema, errors_of
from .offload import SchemaValidator, ValidationDeadline
from .repository import EventTypeRepository

__all__ = ["MEMO_TYPES", "Deferred", "Judged", "Judgement", "SchemaGate", "Verdict"]

log = structlog.get_logger("hookproof.event_types")
#: (tenant, topic) definitions compiled per worker (emptied when full: engine/common/memo.py)
MEMO_TYPES = 1_024


@dataclass(frozen=True, slots=True)
class _Compiled:
    version: int
    #: major -> compiled schema; None: the stored schema no longer compiles
    validators: dict[int, Compiled | None]


@dataclass(frozen=True, slots=True)
class Judged:
    """One event to judge: its key in the group, tenant, topic, major version, payload, and
    the canonical body it travels in (what bounds the work of judging it)."""

    key: Any
    tenant_id: str
    topic: str
    major: int
    payload: Any
    body: bytes


@dataclass(frozen=True, slots=True)
class Deferred:
    """A payload too dear to validate inside the group: judged later by ``settle`` against
    ``version`` of its type, and committed then only if that version still holds."""

    item: Judged
    version: int
    compiled: Compiled


@dataclass(frozen=True, slots=True)
class Verdict:
    """What an off-loop validation found, and the type version it holds for."""

    version: int
    error: HookproofError | None


@dataclass
class Judgement:
    refused: dict[Any, HookproofError] = field(default_factory=dict)
    deferred: dict[Any, Deferred] = field(default_factory=dict)


class SchemaGate:
    def __init__(
        self,
        repository: EventTypeRepository,
        *,
        memo: int = MEMO_TYPES,
        validator: SchemaValidator | None = None,
    ) -> None:
        self.repository = repository
        self.memo: BoundedMemo[tuple[str, str], _Compiled] = BoundedMemo(memo)
        self.validator = validator or SchemaValidator()
        self.compiled = 0  # definitions compiled by this gate (a test and a metric read it)

    async def judge(
        self,
        conn: Any,
        items: Sequence[Judged],
        verdicts: Mapping[Any, Verdict] | None = None,
    ) -> Judgement:
        """The refusals among ``items`` (key -> error) and those deferred (validated outside
        the transaction by :meth:`settle`); an item in neither is accepted. ``verdicts``:
        what :meth:`settle` found for deferred items, used while their version holds."""
        out = Judgement()
        if not items:
            return out
        pairs = sorted({(it.tenant_id, it.topic) for it in items})
        cached = [self.memo.get(p) for p in pairs]
        rows = await self.repository.judge_rows(
            conn,
            [p[0] for p in pairs],
            [p[1] for p in pairs],
            [c.version if c is not None else 0 for c in cached],
        )
        if not rows:
            return out
        held = {p: c for p, c in zip(pairs, cached, strict=True) if c is not None}
        current: dict[tuple[str, str], _Compiled] = {}
        for r in rows:
            pair = (r["tenant_id"], r["topic"])
            if r["definition"] is None:  # the version this worker holds (captured above)
                current[pair] = held[pair]
                continue
            fresh = self._compile(pair, r["stream_version"], r["definition"])
            self.memo.put(pair, fresh)
            current[pair] = fresh
        refused = out.refused
        for it in items:
            entry = current.get((it.tenant_id, it.topic))
            if entry is None:
                continue  # no type: accepted as before
            if it.major not in entry.validators:
                refused[it.key] = EventVersionUndeclared(
                    f"{it.topic} declares major versions "
                    f"{', '.join(map(str, sorted(entry.validators)))}, not {it.major}",
                    field="version",
                    declared=sorted(entry.validators),
                )
                continue
            compiled = entry.validators[it.major]
            known = (verdicts or {}).get(it.key)
            if compiled is None:
                refused[it.key] = SchemaInvalid(
                    "the stored schema of this version no longer compiles; define the type again",
                    field="version",
                )
            elif (work := compiled.work(it.body)) > MAX_WORK:
                refused[it.key] = PayloadTooComplex(
                    f"validating this payload would cost {work} work units, more than "
                    f"{MAX_WORK} (values x subschemas + each regex's weight x bytes): send a "
                    "smaller payload or simplify the schema",
                    field="payload",
                )
            elif known is not None and known.version == entry.version:
                if known.error is not None:
                    refused[it.key] = known.error
            elif self.validator.inline(compiled, it.body):
                errors = errors_of(compiled, it.payload, it.body)  # one pass: verdict + report
                if errors:
                    refused[it.key] = _invalid(it, errors)
            else:
                out.deferred[it.key] = Deferred(it, entry.version, compiled)
        return out

    async def settle(self, deferred: Deferred) -> Verdict:
        """Validate a deferred payload off the loop (no transaction open)."""
        it = deferred.item
        try:
            errors = await self.validator.errors(deferred.compiled, it.payload, it.body)
        except ValidationDeadline as exc:
            return Verdict(deferred.version, PayloadTooComplex(exc.detail, field="payload"))
        except HookproofError as exc:
            return Verdict(deferred.version, exc)
        return Verdict(deferred.version, _invalid(it, errors) if errors else None)

    def _compile(self, pair: tuple[str, str], version: int, text: str) -> _Compiled:
        """A stored definition, compiled whatever limits held when it was written, and priced
        by what its schemas cost now (``limits``): it is not trusted, only bounded."""
        doc = msgspec.json.decode(text)
        validators: dict[int, Compiled | None] = {}
        for major, v in doc["versions"].items():
            try:
                validators[int(major)] = compile_schema(v["schema"])
            except SchemaInvalid:
                log.error("event_type_schema_uncompilable", topic=pair[1], major=major)
                validators[int(major)] = None
        self.compiled += 1
        self.validator.warm()  # a typed topic: a dear payload may come
        return _Compiled(version, validators)


def _invalid(it: Judged, errors: list[dict[str, str]]) -> PayloadSchemaInvalid:
    return PayloadSchemaInvalid(
        f"payload does not match the schema of {it.topic} v{it.major}", errors=errors
    )
