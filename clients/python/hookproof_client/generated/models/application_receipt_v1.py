from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.application_receipt_v1_result import ApplicationReceiptV1Result
from typing import cast
from typing import Literal, cast
import datetime






T = TypeVar("T", bound="ApplicationReceiptV1")



@_attrs_define
class ApplicationReceiptV1:
    """ A subscriber's signed statement that it consumed one delivered event. Sent as the body of POST /v1/receipts, signed
    under hookproof.receipt.v1 (see receipt.md).

        Attributes:
            applied_at (datetime.datetime): RFC 3339 time the subscriber applied (or rejected) the event.
            delivery_id (str): The Webhook-Delivery-Id of the delivery that was consumed.
            event_id (str): The event id (Webhook-Id, body eventId).
            operation_id (str): The subscriber's own id for the operation that applied (or rejected) the event.
            payload_digest (str): Content-Digest value (RFC 9530, sha-256) of the exact delivered body bytes.
            receipt_key_generation (int): Generation of the receipt key that signs this receipt.
            result (ApplicationReceiptV1Result):
            subscription_id (str): The Webhook-Subscription value of the delivery.
            type_ (Literal['applicationReceipt.v1']):
     """

    applied_at: datetime.datetime
    delivery_id: str
    event_id: str
    operation_id: str
    payload_digest: str
    receipt_key_generation: int
    result: ApplicationReceiptV1Result
    subscription_id: str
    type_: Literal['applicationReceipt.v1']





    def to_dict(self) -> dict[str, Any]:
        applied_at = self.applied_at.isoformat()

        delivery_id = self.delivery_id

        event_id = self.event_id

        operation_id = self.operation_id

        payload_digest = self.payload_digest

        receipt_key_generation = self.receipt_key_generation

        result = self.result.value

        subscription_id = self.subscription_id

        type_ = self.type_


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "appliedAt": applied_at,
            "deliveryId": delivery_id,
            "eventId": event_id,
            "operationId": operation_id,
            "payloadDigest": payload_digest,
            "receiptKeyGeneration": receipt_key_generation,
            "result": result,
            "subscriptionId": subscription_id,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        applied_at = datetime.datetime.fromisoformat(d.pop("appliedAt"))




        delivery_id = d.pop("deliveryId")

        event_id = d.pop("eventId")

        operation_id = d.pop("operationId")

        payload_digest = d.pop("payloadDigest")

        receipt_key_generation = d.pop("receiptKeyGeneration")

        result = ApplicationReceiptV1Result(d.pop("result"))




        subscription_id = d.pop("subscriptionId")

        type_ = cast(Literal['applicationReceipt.v1'] , d.pop("type"))
        if type_ != 'applicationReceipt.v1':
            raise ValueError(f"type must match const 'applicationReceipt.v1', got '{type_}'")

        application_receipt_v1 = cls(
            applied_at=applied_at,
            delivery_id=delivery_id,
            event_id=event_id,
            operation_id=operation_id,
            payload_digest=payload_digest,
            receipt_key_generation=receipt_key_generation,
            result=result,
            subscription_id=subscription_id,
            type_=type_,
        )

        return application_receipt_v1

