from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="Recovered")



@_attrs_define
class Recovered:
    """ ``POST /v1/subscriptions/{id}/recover``: how many went back to RETRYABLE and which
    (``nextSince``: more remain, call again from there; ``recoveryId``: the recovery's id
    in the log).

        Attributes:
            delivery_ids (list[str]):
            recovered (int):
            next_since (str | Unset):
            recovery_id (str | Unset):
     """

    delivery_ids: list[str]
    recovered: int
    next_since: str | Unset = UNSET
    recovery_id: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        delivery_ids = self.delivery_ids



        recovered = self.recovered

        next_since = self.next_since

        recovery_id = self.recovery_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "deliveryIds": delivery_ids,
            "recovered": recovered,
        })
        if next_since is not UNSET:
            field_dict["nextSince"] = next_since
        if recovery_id is not UNSET:
            field_dict["recoveryId"] = recovery_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        delivery_ids = cast(list[str], d.pop("deliveryIds"))


        recovered = d.pop("recovered")

        next_since = d.pop("nextSince", UNSET)

        recovery_id = d.pop("recoveryId", UNSET)

        recovered = cls(
            delivery_ids=delivery_ids,
            recovered=recovered,
            next_since=next_since,
            recovery_id=recovery_id,
        )

        return recovered

