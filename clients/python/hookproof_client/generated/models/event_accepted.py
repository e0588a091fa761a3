from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.delivery_ref import DeliveryRef
  from ..models.unplanned_reason import UnplannedReason





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
            reasons (list[UnplannedReason] | Unset):
     """

    created: bool
    deliveries: list[DeliveryRef]
    event_id: str
    payload_digest: str
    reasons: list[UnplannedReason] | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.delivery_ref import DeliveryRef # noqa: PLC0415
        from ..models.unplanned_reason import UnplannedReason # noqa: PLC0415
        created = self.created

        deliveries = []
        for deliveries_item_data in self.deliveries:
            deliveries_item = deliveries_item_data.to_dict()
            deliveries.append(deliveries_item)



        event_id = self.event_id

        payload_digest = self.payload_digest

        reasons: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.reasons, Unset):
            reasons = []
            for reasons_item_data in self.reasons:
                reasons_item = reasons_item_data.to_dict()
                reasons.append(reasons_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "created": created,
            "deliveries": deliveries,
            "eventId": event_id,
            "payloadDigest": payload_digest,
        })
        if reasons is not UNSET:
            field_dict["reasons"] = reasons

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.delivery_ref import DeliveryRef # noqa: PLC0415
        from ..models.unplanned_reason import UnplannedReason # noqa: PLC0415
        d = dict(src_dict)
        created = d.pop("created")

        deliveries = []
        _deliveries = d.pop("deliveries")
        for deliveries_item_data in (_deliveries):
            deliveries_item = DeliveryRef.from_dict(deliveries_item_data)



            deliveries.append(deliveries_item)


        event_id = d.pop("eventId")

        payload_digest = d.pop("payloadDigest")

        _reasons = d.pop("reasons", UNSET)
        reasons: list[UnplannedReason] | Unset = UNSET
        if _reasons is not UNSET:
            reasons = []
            for reasons_item_data in _reasons:
                reasons_item = UnplannedReason.from_dict(reasons_item_data)



                reasons.append(reasons_item)


        event_accepted = cls(
            created=created,
            deliveries=deliveries,
            event_id=event_id,
            payload_digest=payload_digest,
            reasons=reasons,
        )

        return event_accepted

