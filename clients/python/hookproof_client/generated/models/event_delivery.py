from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.delivery_evidence import DeliveryEvidence





T = TypeVar("T", bound="EventDelivery")



@_attrs_define
class EventDelivery:
    """ 
        Attributes:
            delivery_id (str):
            evidence (DeliveryEvidence): How far a delivery's evidence got: ``endpoint`` (``ENDPOINT_ACCEPTED``,
                ``VERIFIED_ENDPOINT`` or ``NONE``) and ``application`` (``CONFIRMED``, ``PENDING`` or
                ``UNOBSERVABLE``), never inferred from each other.
            state (str):
            subscription_id (str):
            archived (bool | Unset):
     """

    delivery_id: str
    evidence: DeliveryEvidence
    state: str
    subscription_id: str
    archived: bool | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.delivery_evidence import DeliveryEvidence # noqa: PLC0415
        delivery_id = self.delivery_id

        evidence = self.evidence.to_dict()

        state = self.state

        subscription_id = self.subscription_id

        archived = self.archived


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "deliveryId": delivery_id,
            "evidence": evidence,
            "state": state,
            "subscriptionId": subscription_id,
        })
        if archived is not UNSET:
            field_dict["archived"] = archived

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.delivery_evidence import DeliveryEvidence # noqa: PLC0415
        d = dict(src_dict)
        delivery_id = d.pop("deliveryId")

        evidence = DeliveryEvidence.from_dict(d.pop("evidence"))




        state = d.pop("state")

        subscription_id = d.pop("subscriptionId")

        archived = d.pop("archived", UNSET)

        event_delivery = cls(
            delivery_id=delivery_id,
            evidence=evidence,
            state=state,
            subscription_id=subscription_id,
            archived=archived,
        )

        return event_delivery

