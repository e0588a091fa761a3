from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.delivery_ref import DeliveryRef





T = TypeVar("T", bound="EventAccepted")



@_attrs_define
class EventAccepted:
    """ ``POST /v1/events`` (202): the event and the deliveries planned for it (``created``:
    false when the same ``eventId`` and payload were accepted before).

        Attributes:
            created (bool):
            deliveries (list[DeliveryRef]):
            event_id (str):
            payload_digest (str):
     """

    created: bool
    deliveries: list[DeliveryRef]
    event_id: str
    payload_digest: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.delivery_ref import DeliveryRef # noqa: PLC0415
        created = self.created

        deliveries = []
        for deliveries_item_data in self.deliveries:
            deliveries_item = deliveries_item_data.to_dict()
            deliveries.append(deliveries_item)



        event_id = self.event_id

        payload_digest = self.payload_digest


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created": created,
            "deliveries": deliveries,
            "eventId": event_id,
            "payloadDigest": payload_digest,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.delivery_ref import DeliveryRef # noqa: PLC0415
        d = dict(src_dict)
        created = d.pop("created")

        deliveries = []
        _deliveries = d.pop("deliveries")
        for deliveries_item_data in (_deliveries):
            deliveries_item = DeliveryRef.from_dict(deliveries_item_data)



            deliveries.append(deliveries_item)


        event_id = d.pop("eventId")

        payload_digest = d.pop("payloadDigest")

        event_accepted = cls(
            created=created,
            deliveries=deliveries,
            event_id=event_id,
            payload_digest=payload_digest,
        )


        event_accepted.additional_properties = d
        return event_accepted

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
