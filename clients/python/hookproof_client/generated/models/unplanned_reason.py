from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="UnplannedReason")



@_attrs_define
class UnplannedReason:
    """ Why an event was planned for no subscription: a stable ``reason`` code, what to do
    (``detail``) and how many subscriptions it concerns.

        Attributes:
            detail (str):
            reason (str):
            subscriptions (int):
     """

    detail: str
    reason: str
    subscriptions: int





    def to_dict(self) -> dict[str, Any]:
        detail = self.detail

        reason = self.reason

        subscriptions = self.subscriptions


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "detail": detail,
            "reason": reason,
            "subscriptions": subscriptions,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        detail = d.pop("detail")

        reason = d.pop("reason")

        subscriptions = d.pop("subscriptions")

        unplanned_reason = cls(
            detail=detail,
            reason=reason,
            subscriptions=subscriptions,
        )

        return unplanned_reason

