from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="DeliveryRef")



@_attrs_define
class DeliveryRef:
    """ 
        Attributes:
            delivery_id (str):
            subscription_id (str):
     """

    delivery_id: str
    subscription_id: str





    def to_dict(self) -> dict[str, Any]:
        delivery_id = self.delivery_id

        subscription_id = self.subscription_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "deliveryId": delivery_id,
            "subscriptionId": subscription_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        delivery_id = d.pop("deliveryId")

        subscription_id = d.pop("subscriptionId")

        delivery_ref = cls(
            delivery_id=delivery_id,
            subscription_id=subscription_id,
        )

        return delivery_ref

