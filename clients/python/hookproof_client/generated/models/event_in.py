from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






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
            occurred_at (str | Unset): When it happened (RFC 3339). Omitted: the engine records when it first accepted the
                event, and the same eventId and payload posted again without occurredAt is the same event (created false), never
                a conflict; a value the sender sets is compared as sent.
     """

    aggregate_id: str
    aggregate_version: int
    event_id: str
    payload: Any
    topic: str
    version: str
    consumer_id: None | str | Unset = UNSET
    occurred_at: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
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

        occurred_at = self.occurred_at


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
        if occurred_at is not UNSET:
            field_dict["occurredAt"] = occurred_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
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


        occurred_at = d.pop("occurredAt", UNSET)

        event_in = cls(
            aggregate_id=aggregate_id,
            aggregate_version=aggregate_version,
            event_id=event_id,
            payload=payload,
            topic=topic,
            version=version,
            consumer_id=consumer_id,
            occurred_at=occurred_at,
        )

        return event_in

