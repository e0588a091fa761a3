from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.delivery_evidence import DeliveryEvidence





T = TypeVar("T", bound="DeliveryLogItem")



@_attrs_define
class DeliveryLogItem:
    """ One delivery in the log (its full view, attempts included, is ``GET
    /v1/deliveries/{id}``).

        Attributes:
            attempt (int):
            created_at (str):
            delivery_id (str):
            event_id (str):
            evidence (DeliveryEvidence): How far a delivery's evidence got: ``endpoint`` (``ENDPOINT_ACCEPTED``,
                ``VERIFIED_ENDPOINT`` or ``NONE``) and ``application`` (``CONFIRMED``, ``PENDING`` or
                ``UNOBSERVABLE``), never inferred from each other.
            generation (int):
            state (str):
            subscription_id (str):
            test (bool):
            topic (str):
            updated_at (str):
     """

    attempt: int
    created_at: str
    delivery_id: str
    event_id: str
    evidence: DeliveryEvidence
    generation: int
    state: str
    subscription_id: str
    test: bool
    topic: str
    updated_at: str





    def to_dict(self) -> dict[str, Any]:
        from ..models.delivery_evidence import DeliveryEvidence # noqa: PLC0415
        attempt = self.attempt

        created_at = self.created_at

        delivery_id = self.delivery_id

        event_id = self.event_id

        evidence = self.evidence.to_dict()

        generation = self.generation

        state = self.state

        subscription_id = self.subscription_id

        test = self.test

        topic = self.topic

        updated_at = self.updated_at


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "attempt": attempt,
            "createdAt": created_at,
            "deliveryId": delivery_id,
            "eventId": event_id,
            "evidence": evidence,
            "generation": generation,
            "state": state,
            "subscriptionId": subscription_id,
            "test": test,
            "topic": topic,
            "updatedAt": updated_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.delivery_evidence import DeliveryEvidence # noqa: PLC0415
        d = dict(src_dict)
        attempt = d.pop("attempt")

        created_at = d.pop("createdAt")

        delivery_id = d.pop("deliveryId")

        event_id = d.pop("eventId")

        evidence = DeliveryEvidence.from_dict(d.pop("evidence"))




        generation = d.pop("generation")

        state = d.pop("state")

        subscription_id = d.pop("subscriptionId")

        test = d.pop("test")

        topic = d.pop("topic")

        updated_at = d.pop("updatedAt")

        delivery_log_item = cls(
            attempt=attempt,
            created_at=created_at,
            delivery_id=delivery_id,
            event_id=event_id,
            evidence=evidence,
            generation=generation,
            state=state,
            subscription_id=subscription_id,
            test=test,
            topic=topic,
            updated_at=updated_at,
        )

        return delivery_log_item

