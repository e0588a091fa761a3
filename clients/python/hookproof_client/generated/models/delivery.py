from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.application_receipt_view import ApplicationReceiptView
  from ..models.dead_letter_info import DeadLetterInfo
  from ..models.delivery_attempt import DeliveryAttempt
  from ..models.delivery_evidence import DeliveryEvidence
  from ..models.delivery_filters import DeliveryFilters
  from ..models.ordering_info import OrderingInfo
  from ..models.receipt_conflict_view import ReceiptConflictView
  from ..models.request_body import RequestBody





T = TypeVar("T", bound="Delivery")



@_attrs_define
class Delivery:
    """ A delivery: its state, evidence ladder and attempts (each with its outcome, status,
    code, timings, ``response``: what came back, and ``request``: what it sent);
    ``requestBody``, what its attempts sent, once; ``deadLetter``, ``ordering``,
    ``applicationReceipt``, ``receiptConflicts`` and ``archived`` when they apply.

        Attributes:
            attempt (int):
            attempts (list[DeliveryAttempt]):
            created_at (str):
            delivery_id (str):
            endpoint (None | str):
            event_id (str):
            evidence (DeliveryEvidence): How far a delivery's evidence got: ``endpoint`` (``ENDPOINT_ACCEPTED``,
                ``VERIFIED_ENDPOINT`` or ``NONE``) and ``application`` (``CONFIRMED``, ``PENDING`` or
                ``UNOBSERVABLE``), never inferred from each other.
            generation (int):
            last_code (None | str):
            next_attempt_at (None | str):
            owner (None | str):
            payload_digest (str):
            request_body (RequestBody): The body every attempt of a delivery sent: the event's canonical body (stored once
                per
                event), its first 64 KiB as UTF-8 ``text`` (``truncated`` beyond), ``bytes`` its size;
                ``archived`` (``text`` null) once the body has left the hot store.
            state (str):
            subscription_id (str):
            test (bool):
            updated_at (str):
            application_receipt (ApplicationReceiptView | Unset): The signed receipt that confirmed the delivery applied.
            archived (bool | Unset):
            dead_letter (DeadLetterInfo | Unset): A dead letter's owner, reason and the requests that replay or skip it.
            filters (DeliveryFilters | Unset): The filters that decided a delivery's planning (DESIGN.md section 16).
            last_code_detail (str | Unset):
            ordering (OrderingInfo | Unset):
            receipt_conflicts (list[ReceiptConflictView] | Unset):
     """

    attempt: int
    attempts: list[DeliveryAttempt]
    created_at: str
    delivery_id: str
    endpoint: None | str
    event_id: str
    evidence: DeliveryEvidence
    generation: int
    last_code: None | str
    next_attempt_at: None | str
    owner: None | str
    payload_digest: str
    request_body: RequestBody
    state: str
    subscription_id: str
    test: bool
    updated_at: str
    application_receipt: ApplicationReceiptView | Unset = UNSET
    archived: bool | Unset = UNSET
    dead_letter: DeadLetterInfo | Unset = UNSET
    filters: DeliveryFilters | Unset = UNSET
    last_code_detail: str | Unset = UNSET
    ordering: OrderingInfo | Unset = UNSET
    receipt_conflicts: list[ReceiptConflictView] | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.application_receipt_view import ApplicationReceiptView # noqa: PLC0415
        from ..models.dead_letter_info import DeadLetterInfo # noqa: PLC0415
        from ..models.delivery_attempt import DeliveryAttempt # noqa: PLC0415
        from ..models.delivery_evidence import DeliveryEvidence # noqa: PLC0415
        from ..models.delivery_filters import DeliveryFilters # noqa: PLC0415
        from ..models.ordering_info import OrderingInfo # noqa: PLC0415
        from ..models.receipt_conflict_view import ReceiptConflictView # noqa: PLC0415
        from ..models.request_body import RequestBody # noqa: PLC0415
        attempt = self.attempt

        attempts = []
        for attempts_item_data in self.attempts:
            attempts_item = attempts_item_data.to_dict()
            attempts.append(attempts_item)



        created_at = self.created_at

        delivery_id = self.delivery_id

        endpoint: None | str
        endpoint = self.endpoint

        event_id = self.event_id

        evidence = self.evidence.to_dict()

        generation = self.generation

        last_code: None | str
        last_code = self.last_code

        next_attempt_at: None | str
        next_attempt_at = self.next_attempt_at

        owner: None | str
        owner = self.owner

        payload_digest = self.payload_digest

        request_body = self.request_body.to_dict()

        state = self.state

        subscription_id = self.subscription_id

        test = self.test

        updated_at = self.updated_at

        application_receipt: dict[str, Any] | Unset = UNSET
        if not isinstance(self.application_receipt, Unset):
            application_receipt = self.application_receipt.to_dict()

        archived = self.archived

        dead_letter: dict[str, Any] | Unset = UNSET
        if not isinstance(self.dead_letter, Unset):
            dead_letter = self.dead_letter.to_dict()

        filters: dict[str, Any] | Unset = UNSET
        if not isinstance(self.filters, Unset):
            filters = self.filters.to_dict()

        last_code_detail = self.last_code_detail

        ordering: dict[str, Any] | Unset = UNSET
        if not isinstance(self.ordering, Unset):
            ordering = self.ordering.to_dict()

        receipt_conflicts: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.receipt_conflicts, Unset):
            receipt_conflicts = []
            for receipt_conflicts_item_data in self.receipt_conflicts:
                receipt_conflicts_item = receipt_conflicts_item_data.to_dict()
                receipt_conflicts.append(receipt_conflicts_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "attempt": attempt,
            "attempts": attempts,
            "createdAt": created_at,
            "deliveryId": delivery_id,
            "endpoint": endpoint,
            "eventId": event_id,
            "evidence": evidence,
            "generation": generation,
            "lastCode": last_code,
            "nextAttemptAt": next_attempt_at,
            "owner": owner,
            "payloadDigest": payload_digest,
            "requestBody": request_body,
            "state": state,
            "subscriptionId": subscription_id,
            "test": test,
            "updatedAt": updated_at,
        })
        if application_receipt is not UNSET:
            field_dict["applicationReceipt"] = application_receipt
        if archived is not UNSET:
            field_dict["archived"] = archived
        if dead_letter is not UNSET:
            field_dict["deadLetter"] = dead_letter
        if filters is not UNSET:
            field_dict["filters"] = filters
        if last_code_detail is not UNSET:
            field_dict["lastCodeDetail"] = last_code_detail
        if ordering is not UNSET:
            field_dict["ordering"] = ordering
        if receipt_conflicts is not UNSET:
            field_dict["receiptConflicts"] = receipt_conflicts

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.application_receipt_view import ApplicationReceiptView # noqa: PLC0415
        from ..models.dead_letter_info import DeadLetterInfo # noqa: PLC0415
        from ..models.delivery_attempt import DeliveryAttempt # noqa: PLC0415
        from ..models.delivery_evidence import DeliveryEvidence # noqa: PLC0415
        from ..models.delivery_filters import DeliveryFilters # noqa: PLC0415
        from ..models.ordering_info import OrderingInfo # noqa: PLC0415
        from ..models.receipt_conflict_view import ReceiptConflictView # noqa: PLC0415
        from ..models.request_body import RequestBody # noqa: PLC0415
        d = dict(src_dict)
        attempt = d.pop("attempt")

        attempts = []
        _attempts = d.pop("attempts")
        for attempts_item_data in (_attempts):
            attempts_item = DeliveryAttempt.from_dict(attempts_item_data)



            attempts.append(attempts_item)


        created_at = d.pop("createdAt")

        delivery_id = d.pop("deliveryId")

        def _parse_endpoint(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        endpoint = _parse_endpoint(d.pop("endpoint"))


        event_id = d.pop("eventId")

        evidence = DeliveryEvidence.from_dict(d.pop("evidence"))




        generation = d.pop("generation")

        def _parse_last_code(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_code = _parse_last_code(d.pop("lastCode"))


        def _parse_next_attempt_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_attempt_at = _parse_next_attempt_at(d.pop("nextAttemptAt"))


        def _parse_owner(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        owner = _parse_owner(d.pop("owner"))


        payload_digest = d.pop("payloadDigest")

        request_body = RequestBody.from_dict(d.pop("requestBody"))




        state = d.pop("state")

        subscription_id = d.pop("subscriptionId")

        test = d.pop("test")

        updated_at = d.pop("updatedAt")

        _application_receipt = d.pop("applicationReceipt", UNSET)
        application_receipt: ApplicationReceiptView | Unset
        if isinstance(_application_receipt,  Unset):
            application_receipt = UNSET
        else:
            application_receipt = ApplicationReceiptView.from_dict(_application_receipt)




        archived = d.pop("archived", UNSET)

        _dead_letter = d.pop("deadLetter", UNSET)
        dead_letter: DeadLetterInfo | Unset
        if isinstance(_dead_letter,  Unset):
            dead_letter = UNSET
        else:
            dead_letter = DeadLetterInfo.from_dict(_dead_letter)




        _filters = d.pop("filters", UNSET)
        filters: DeliveryFilters | Unset
        if isinstance(_filters,  Unset):
            filters = UNSET
        else:
            filters = DeliveryFilters.from_dict(_filters)




        last_code_detail = d.pop("lastCodeDetail", UNSET)

        _ordering = d.pop("ordering", UNSET)
        ordering: OrderingInfo | Unset
        if isinstance(_ordering,  Unset):
            ordering = UNSET
        else:
            ordering = OrderingInfo.from_dict(_ordering)




        _receipt_conflicts = d.pop("receiptConflicts", UNSET)
        receipt_conflicts: list[ReceiptConflictView] | Unset = UNSET
        if _receipt_conflicts is not UNSET:
            receipt_conflicts = []
            for receipt_conflicts_item_data in _receipt_conflicts:
                receipt_conflicts_item = ReceiptConflictView.from_dict(receipt_conflicts_item_data)



                receipt_conflicts.append(receipt_conflicts_item)


        delivery = cls(
            attempt=attempt,
            attempts=attempts,
            created_at=created_at,
            delivery_id=delivery_id,
            endpoint=endpoint,
            event_id=event_id,
            evidence=evidence,
            generation=generation,
            last_code=last_code,
            next_attempt_at=next_attempt_at,
            owner=owner,
            payload_digest=payload_digest,
            request_body=request_body,
            state=state,
            subscription_id=subscription_id,
            test=test,
            updated_at=updated_at,
            application_receipt=application_receipt,
            archived=archived,
            dead_letter=dead_letter,
            filters=filters,
            last_code_detail=last_code_detail,
            ordering=ordering,
            receipt_conflicts=receipt_conflicts,
        )

        return delivery

