from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="ReceiptConflictView")



@_attrs_define
class ReceiptConflictView:
    """ A receipt quarantined: its payloadDigest is not the delivered one.

        Attributes:
            at (str):
            operation_id (str):
            receipt_digest (str):
     """

    at: str
    operation_id: str
    receipt_digest: str





    def to_dict(self) -> dict[str, Any]:
        at = self.at

        operation_id = self.operation_id

        receipt_digest = self.receipt_digest


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "at": at,
            "operationId": operation_id,
            "receiptDigest": receipt_digest,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        at = d.pop("at")

        operation_id = d.pop("operationId")

        receipt_digest = d.pop("receiptDigest")

        receipt_conflict_view = cls(
            at=at,
            operation_id=operation_id,
            receipt_digest=receipt_digest,
        )

        return receipt_conflict_view

