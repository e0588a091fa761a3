from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.relay_attached_type import RelayAttachedType






T = TypeVar("T", bound="RelayAttached")



@_attrs_define
class RelayAttached:
    """ 
        Attributes:
            endpoint (str):
            session_id (str):
            subscription_id (str):
            type_ (RelayAttachedType):
     """

    endpoint: str
    session_id: str
    subscription_id: str
    type_: RelayAttachedType





    def to_dict(self) -> dict[str, Any]:
        endpoint = self.endpoint

        session_id = self.session_id

        subscription_id = self.subscription_id

        type_ = self.type_.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "endpoint": endpoint,
            "sessionId": session_id,
            "subscriptionId": subscription_id,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        endpoint = d.pop("endpoint")

        session_id = d.pop("sessionId")

        subscription_id = d.pop("subscriptionId")

        type_ = RelayAttachedType(d.pop("type"))




        relay_attached = cls(
            endpoint=endpoint,
            session_id=session_id,
            subscription_id=subscription_id,
            type_=type_,
        )

        return relay_attached

