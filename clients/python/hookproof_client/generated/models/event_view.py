from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.event_delivery import EventDelivery





T = TypeVar("T", bound="EventView")



@_attrs_define
class EventView:
    """ ``GET /v1/events/{eventId}``: an event and its deliveries (``archived``: read from the
    archive).

        Attributes:
            deliveries (list[EventDelivery]):
            event_id (str):
            payload_digest (str):
            topic (str):
            archived (bool | Unset):
     """

    deliveries: list[EventDelivery]
    event_id: str
    payload_digest: str
    topic: str
    archived: bool | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.event_delivery import EventDelivery # noqa: PLC0415
        deliveries = []
        for deliveries_item_data in self.deliveries:
            deliveries_item = deliveries_item_data.to_dict()
            deliveries.append(deliveries_item)



        event_id = self.event_id

        payload_digest = self.payload_digest

        topic = self.topic

        archived = self.archived


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "deliveries": deliveries,
            "eventId": event_id,
            "payloadDigest": payload_digest,
            "topic": topic,
        })
        if archived is not UNSET:
            field_dict["archived"] = archived

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_delivery import EventDelivery # noqa: PLC0415
        d = dict(src_dict)
        deliveries = []
        _deliveries = d.pop("deliveries")
        for deliveries_item_data in (_deliveries):
            deliveries_item = EventDelivery.from_dict(deliveries_item_data)



            deliveries.append(deliveries_item)


        event_id = d.pop("eventId")

        payload_digest = d.pop("payloadDigest")

        topic = d.pop("topic")

        archived = d.pop("archived", UNSET)

        event_view = cls(
            deliveries=deliveries,
            event_id=event_id,
            payload_digest=payload_digest,
            topic=topic,
            archived=archived,
        )

        return event_view

