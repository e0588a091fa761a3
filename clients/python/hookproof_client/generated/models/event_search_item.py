from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="EventSearchItem")



@_attrs_define
class EventSearchItem:
    """ One event a search found (its deliveries: ``GET /v1/events/{eventId}``).

        Attributes:
            aggregate_id (str):
            created_at (str):
            event_id (str):
            occurred_at (str):
            payload (Any):
            payload_digest (str):
            topic (str):
     """

    aggregate_id: str
    created_at: str
    event_id: str
    occurred_at: str
    payload: Any
    payload_digest: str
    topic: str





    def to_dict(self) -> dict[str, Any]:
        aggregate_id = self.aggregate_id

        created_at = self.created_at

        event_id = self.event_id

        occurred_at = self.occurred_at

        payload = self.payload

        payload_digest = self.payload_digest

        topic = self.topic


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "aggregateId": aggregate_id,
            "createdAt": created_at,
            "eventId": event_id,
            "occurredAt": occurred_at,
            "payload": payload,
            "payloadDigest": payload_digest,
            "topic": topic,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        aggregate_id = d.pop("aggregateId")

        created_at = d.pop("createdAt")

        event_id = d.pop("eventId")

        occurred_at = d.pop("occurredAt")

        payload = d.pop("payload")

        payload_digest = d.pop("payloadDigest")

        topic = d.pop("topic")

        event_search_item = cls(
            aggregate_id=aggregate_id,
            created_at=created_at,
            event_id=event_id,
            occurred_at=occurred_at,
            payload=payload,
            payload_digest=payload_digest,
            topic=topic,
        )

        return event_search_item

