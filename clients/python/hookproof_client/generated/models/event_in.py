from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.event_in_extensions_type_0 import EventInExtensionsType0





T = TypeVar("T", bound="EventIn")



@_attrs_define
class EventIn:
    """ 
        Attributes:
            aggregate_id (str):
            aggregate_version (int): 0..4611686018427387904
            event_id (str):
            payload (Any):
            topic (str):
            version (str):
            consumer_id (None | str | Unset):
            extensions (EventInExtensionsType0 | None | Unset):
            occurred_at (datetime.datetime | Unset): When it happened (RFC 3339). Omitted: the engine records when it first
                accepted the event, and the same eventId and payload posted again without occurredAt is the same event (created
                false), never a conflict; a value the sender sets is compared as sent.
            source (None | str | Unset):
     """

    aggregate_id: str
    aggregate_version: int
    event_id: str
    payload: Any
    topic: str
    version: str
    consumer_id: None | str | Unset = UNSET
    extensions: EventInExtensionsType0 | None | Unset = UNSET
    occurred_at: datetime.datetime | Unset = UNSET
    source: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.event_in_extensions_type_0 import EventInExtensionsType0 # noqa: PLC0415
        aggregate_id = self.aggregate_id

        aggregate_version = self.aggregate_version

        event_id = self.event_id

        payload = self.payload

        topic = self.topic

        version = self.version

        consumer_id: None | str | Unset
        if isinstance(self.consumer_id, Unset):
            consumer_id = UNSET
        else:
            consumer_id = self.consumer_id

        extensions: dict[str, Any] | None | Unset
        if isinstance(self.extensions, Unset):
            extensions = UNSET
        elif isinstance(self.extensions, EventInExtensionsType0):
            extensions = self.extensions.to_dict()
        else:
            extensions = self.extensions

        occurred_at: str | Unset = UNSET
        if not isinstance(self.occurred_at, Unset):
            occurred_at = self.occurred_at.isoformat()

        source: None | str | Unset
        if isinstance(self.source, Unset):
            source = UNSET
        else:
            source = self.source


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "aggregateId": aggregate_id,
            "aggregateVersion": aggregate_version,
            "eventId": event_id,
            "payload": payload,
            "topic": topic,
            "version": version,
        })
        if consumer_id is not UNSET:
            field_dict["consumerId"] = consumer_id
        if extensions is not UNSET:
            field_dict["extensions"] = extensions
        if occurred_at is not UNSET:
            field_dict["occurredAt"] = occurred_at
        if source is not UNSET:
            field_dict["source"] = source

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_in_extensions_type_0 import EventInExtensionsType0 # noqa: PLC0415
        d = dict(src_dict)
        aggregate_id = d.pop("aggregateId")

        aggregate_version = d.pop("aggregateVersion")

        event_id = d.pop("eventId")

        payload = d.pop("payload")

        topic = d.pop("topic")

        version = d.pop("version")

        def _parse_consumer_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        consumer_id = _parse_consumer_id(d.pop("consumerId", UNSET))


        def _parse_extensions(data: object) -> EventInExtensionsType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                extensions_type_0 = EventInExtensionsType0.from_dict(data)



                return extensions_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EventInExtensionsType0 | None | Unset, data)

        extensions = _parse_extensions(d.pop("extensions", UNSET))


        _occurred_at = d.pop("occurredAt", UNSET)
        occurred_at: datetime.datetime | Unset
        if isinstance(_occurred_at,  Unset):
            occurred_at = UNSET
        else:
            occurred_at = datetime.datetime.fromisoformat(_occurred_at)




        def _parse_source(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source = _parse_source(d.pop("source", UNSET))


        event_in = cls(
            aggregate_id=aggregate_id,
            aggregate_version=aggregate_version,
            event_id=event_id,
            payload=payload,
            topic=topic,
            version=version,
            consumer_id=consumer_id,
            extensions=extensions,
            occurred_at=occurred_at,
            source=source,
        )

        return event_in

