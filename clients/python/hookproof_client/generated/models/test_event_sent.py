from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.delivery_ref import DeliveryRef





T = TypeVar("T", bound="TestEventSent")



@_attrs_define
class TestEventSent:
    """ ``POST /v1/subscriptions/{id}/test-events`` (202): the test event, marked ``test``.

        Attributes:
            deliveries (list[DeliveryRef]):
            event_id (str):
            payload_digest (str):
            test (bool):
     """

    deliveries: list[DeliveryRef]
    event_id: str
    payload_digest: str
    test: bool





    def to_dict(self) -> dict[str, Any]:
        from ..models.delivery_ref import DeliveryRef # noqa: PLC0415
        deliveries = []
        for deliveries_item_data in self.deliveries:
            deliveries_item = deliveries_item_data.to_dict()
            deliveries.append(deliveries_item)



        event_id = self.event_id

        payload_digest = self.payload_digest

        test = self.test


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "deliveries": deliveries,
            "eventId": event_id,
            "payloadDigest": payload_digest,
            "test": test,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.delivery_ref import DeliveryRef # noqa: PLC0415
        d = dict(src_dict)
        deliveries = []
        _deliveries = d.pop("deliveries")
        for deliveries_item_data in (_deliveries):
            deliveries_item = DeliveryRef.from_dict(deliveries_item_data)



            deliveries.append(deliveries_item)


        event_id = d.pop("eventId")

        payload_digest = d.pop("payloadDigest")

        test = d.pop("test")

        test_event_sent = cls(
            deliveries=deliveries,
            event_id=event_id,
            payload_digest=payload_digest,
            test=test,
        )

        return test_event_sent

