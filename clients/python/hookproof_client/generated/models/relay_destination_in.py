from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.relay_destination_in_type import RelayDestinationInType






T = TypeVar("T", bound="RelayDestinationIn")



@_attrs_define
class RelayDestinationIn:
    """ A development relay (``hookproof listen``, DESIGN.md section 11): no URL of its own;
    deliveries go over the WebSocket ``GET /v1/relay/{subscriptionId}`` that the listening
    CLI holds open, and the subscription's ``endpoint`` is the local ``http://`` loopback URL
    the CLI forwards to (the signatures cover it, so the local receiver verifies as in
    production). Nothing is dialled by the engine, so no address vetting applies.

        Attributes:
            type_ (RelayDestinationInType):
     """

    type_: RelayDestinationInType





    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = RelayDestinationInType(d.pop("type"))




        relay_destination_in = cls(
            type_=type_,
        )

        return relay_destination_in

