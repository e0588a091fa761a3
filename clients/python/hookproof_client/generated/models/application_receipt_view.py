from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="ApplicationReceiptView")



@_attrs_define
class ApplicationReceiptView:
    """ The signed receipt that confirmed the delivery applied.

        Attributes:
            applied_at (str):
            confirmed_at (str):
            operation_id (str):
            receipt_key_generation (int | None):
            receipt_key_id (None | str):
            result (str):
     """

    applied_at: str
    confirmed_at: str
    operation_id: str
    receipt_key_generation: int | None
    receipt_key_id: None | str
    result: str





    def to_dict(self) -> dict[str, Any]:
        applied_at = self.applied_at

        confirmed_at = self.confirmed_at

        operation_id = self.operation_id

        receipt_key_generation: int | None
        receipt_key_generation = self.receipt_key_generation

        receipt_key_id: None | str
        receipt_key_id = self.receipt_key_id

        result = self.result


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "appliedAt": applied_at,
            "confirmedAt": confirmed_at,
            "operationId": operation_id,
            "receiptKeyGeneration": receipt_key_generation,
            "receiptKeyId": receipt_key_id,
            "result": result,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        applied_at = d.pop("appliedAt")

        confirmed_at = d.pop("confirmedAt")

        operation_id = d.pop("operationId")

        def _parse_receipt_key_generation(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        receipt_key_generation = _parse_receipt_key_generation(d.pop("receiptKeyGeneration"))


        def _parse_receipt_key_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        receipt_key_id = _parse_receipt_key_id(d.pop("receiptKeyId"))


        result = d.pop("result")

        application_receipt_view = cls(
            applied_at=applied_at,
            confirmed_at=confirmed_at,
            operation_id=operation_id,
            receipt_key_generation=receipt_key_generation,
            receipt_key_id=receipt_key_id,
            result=result,
        )

        return application_receipt_view

