from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.delivery_evidence import DeliveryEvidence





T = TypeVar("T", bound="DeliverySearchItem")



@_attrs_define
class DeliverySearchItem:
    """ One delivery a search found (its full view is ``GET /v1/deliveries/{id}``).

        Attributes:
            attempt (int):
            created_at (str):
            delivery_id (str):
            event_id (str):
            evidence (DeliveryEvidence): How far a delivery's evidence got: ``endpoint`` (``ENDPOINT_ACCEPTED``,
                ``VERIFIED_ENDPOINT`` or ``NONE``) and ``application`` (``CONFIRMED``, ``PENDING`` or
                ``UNOBSERVABLE``), never inferred from each other.
            generation (int):
            reason_code (None | str):
            state (str):
            status_code (int | None):
            subscription_id (str):
            topic (str):
            updated_at (str):
     """

    attempt: int
    created_at: str
    delivery_id: str
    event_id: str
    evidence: DeliveryEvidence
    generation: int
    reason_code: None | str
    state: str
    status_code: int | None
    subscription_id: str
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

        reason_code: None | str
        reason_code = self.reason_code

        state = self.state

        status_code: int | None
        status_code = self.status_code

        subscription_id = self.subscription_id

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
            "reasonCode": reason_code,
            "state": state,
            "statusCode": status_code,
            "subscriptionId": subscription_id,
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

        def _parse_reason_code(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reason_code = _parse_reason_code(d.pop("reasonCode"))


        state = d.pop("state")

        def _parse_status_code(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        status_code = _parse_status_code(d.pop("statusCode"))


        subscription_id = d.pop("subscriptionId")

        topic = d.pop("topic")

        updated_at = d.pop("updatedAt")

        delivery_search_item = cls(
            attempt=attempt,
            created_at=created_at,
            delivery_id=delivery_id,
            event_id=event_id,
            evidence=evidence,
            generation=generation,
            reason_code=reason_code,
            state=state,
            status_code=status_code,
            subscription_id=subscription_id,
            topic=topic,
            updated_at=updated_at,
        )

        return delivery_search_item

