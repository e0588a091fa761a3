"""The event catalogue: one msgspec Struct per event type, tagged, versioned, upcastable.

An event type is a subclass of :class:`Event` declared with ``tag="<type name>"``; its
``schema_version`` class variable says which version of the shape it is. Older stored shapes
are brought forward by upcasters registered per ``(type, from_version)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

import msgspec

from hookproof.errors import ValidationError

from .canonical import canonical_json

__all__ = [
    "Event",
    "MalformedEvent",
    "UnknownEventType",
    "decode_event",
    "encode_event",
    "event_class",
    "event_types",
    "upcaster",
]


class UnknownEventType(ValidationError):
    code = "unknown_event_type"


class MalformedEvent(ValidationError):
    code = "malformed_event"


class Event(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=True
):
    """Base of every event type. Subclasses set ``tag=`` and may raise ``schema_version``."""

    schema_version: ClassVar[int] = 1

    @property
    def type(self) -> str:
        return str(type(self).__struct_config__.tag)


E = TypeVar("E", bound=Event)
Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

_UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def _walk(cls: type[Event]) -> list[type[Event]]:
    out: list[type[Event]] = []
    for sub in cls.__subclasses__():
        out.append(sub)
        out.extend(_walk(sub))
    return out


def event_types() -> dict[str, type[Event]]:
    """Every registered event type by name."""
    found: dict[str, type[Event]] = {}
    for cls in _walk(Event):
        tag = cls.__struct_config__.tag
        if isinstance(tag, str):
            if tag in found and found[tag] is not cls:
                raise RuntimeError(f"two event classes share the type {tag!r}")
            found[tag] = cls
    return found


_CACHE: dict[str, type[Event]] = {}


def event_class(type_name: str) -> type[Event]:
    cls = _CACHE.get(type_name)
    if cls is None:
        _CACHE.update(event_types())
        cls = _CACHE.get(type_name)
    if cls is None:
        raise UnknownEventType(f"unknown event type {type_name!r}", field="type")
    return cls


def upcaster(type_name: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
    """Register a function turning version ``from_version`` data into ``from_version + 1``."""

    def register(fn: Upcaster) -> Upcaster:
        _UPCASTERS[(type_name, from_version)] = fn
        return fn

    return register


def encode_event(event: Event) -> bytes:
    """The canonical bytes of an event (stored, hashed; never re-encoded)."""
    if not isinstance(event, Event) or not isinstance(type(event).__struct_config__.tag, str):
        raise UnknownEventType(f"not a catalogue event: {type(event).__name__}", field="type")
    return canonical_json(event)


def decode_event(type_name: str, schema_version: int, data: bytes) -> Event:
    """Decode stored bytes into the current shape of ``type_name``, upcasting old versions."""
    cls = event_class(type_name)
    if schema_version < 1 or schema_version > cls.schema_version:
        raise MalformedEvent(
            f"{type_name}: schema version {schema_version} not in 1..{cls.schema_version}",
            field="schema_version",
        )
    try:
        if schema_version == cls.schema_version:
            return msgspec.json.decode(data, type=cls)
        raw = msgspec.json.decode(data)
        if not isinstance(raw, dict):
            raise MalformedEvent(f"{type_name}: data is not an object", field="data")
        for version in range(schema_version, cls.schema_version):
            step = _UPCASTERS.get((type_name, version))
            if step is None:
                raise MalformedEvent(
                    f"{type_name}: no upcaster from version {version}", field="schema_version"
                )
            raw = step(raw)
        return msgspec.convert(raw, type=cls)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise MalformedEvent(f"{type_name}: {exc}", field="data") from exc
