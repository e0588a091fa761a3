from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.receipt_confirmed_receipt import ReceiptConfirmedReceipt
from typing import cast

if TYPE_CHECKING:
  from ..models.delivery_evidence import DeliveryEvidence





T = TypeVar("T", bound="ReceiptConfirmed")



@_attrs_define
class ReceiptConfirmed:
    """ ``POST /v1/receipts``: 201 ``accepted``, 200 ``duplicate`` (the same receipt again).

        Attributes:
            applied_at (str):
            confirmed_at (str):
            delivery_id (str):
            event_id (str):
            evidence (DeliveryEvidence): How far a delivery's evidence got: ``endpoint`` (``ENDPOINT_ACCEPTED``,
                ``VERIFIED_ENDPOINT`` or ``NONE``) and ``application`` (``CONFIRMED``, ``PENDING`` or
                ``UNOBSERVABLE``), never inferred from each other.
            operation_id (str):
            receipt (ReceiptConfirmedReceipt):
            result (str):
            state (str):
            subscription_id (str):
     """

    applied_at: str
    confirmed_at: str
    delivery_id: str
    event_id: str
    evidence: DeliveryEvidence
    operation_id: str
    receipt: ReceiptConfirmedReceipt
    result: str
    state: str
    subscription_id: str





    def to_dict(self) -> dict[str, Any]:
        from ..models.delivery_evidence import DeliveryEvidence # noqa: PLC0415
        applied_at = self.applied_at

        confirmed_at = self.confirmed_at

        delivery_id = self.delivery_id

        event_id = self.event_id

        evidence = self.evidence.to_dict()

        operation_id = self.operation_id

        receipt = self.receipt.value

        result = self.result

        state = self.state

        subscription_id = self.subscription_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "appliedAt": applied_at,
            "confirmedAt": confirmed_at,
            "deliveryId": delivery_id,
            "eventId": event_id,
            "evidence": evidence,
            "operationId": operation_id,
            "receipt": receipt,
            "result": result,
            "state": state,
            "subscriptionId": subscription_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.delivery_evidence import DeliveryEvidence # noqa: PLC0415
        d = dict(src_dict)
        applied_at = d.pop("appliedAt")

        confirmed_at = d.pop("confirmedAt")

        delivery_id = d.pop("deliveryId")

        event_id = d.pop("eventId")

        evidence = DeliveryEvidence.from_dict(d.pop("evidence"))




        operation_id = d.pop("operationId")

        receipt = ReceiptConfirmedReceipt(d.pop("receipt"))




        result = d.pop("result")

        state = d.pop("state")

        subscription_id = d.pop("subscriptionId")

        receipt_confirmed = cls(
            applied_at=applied_at,
            confirmed_at=confirmed_at,
            delivery_id=delivery_id,
            event_id=event_id,
            evidence=evidence,
            operation_id=operation_id,
            receipt=receipt,
            result=result,
            state=state,
            subscription_id=subscription_id,
        )

        return receipt_confirmed

