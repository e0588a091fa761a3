from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.relay_request_kind import RelayRequestKind
from ..models.relay_request_type import RelayRequestType
from typing import cast

if TYPE_CHECKING:
  from ..models.relay_request_headers import RelayRequestHeaders





T = TypeVar("T", bound="RelayRequest")



@_attrs_define
class RelayRequest:
    """ 
        Attributes:
            attempt (int):
            body (str):
            delivery_id (str):
            exchange_id (str):
            headers (RelayRequestHeaders):
            kind (RelayRequestKind):
            type_ (RelayRequestType):
     """

    attempt: int
    body: str
    delivery_id: str
    exchange_id: str
    headers: RelayRequestHeaders
    kind: RelayRequestKind
    type_: RelayRequestType





    def to_dict(self) -> dict[str, Any]:
        from ..models.relay_request_headers import RelayRequestHeaders # noqa: PLC0415
        attempt = self.attempt

        body = self.body

        delivery_id = self.delivery_id

        exchange_id = self.exchange_id

        headers = self.headers.to_dict()

        kind = self.kind.value

        type_ = self.type_.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "attempt": attempt,
            "body": body,
            "deliveryId": delivery_id,
            "exchangeId": exchange_id,
            "headers": headers,
            "kind": kind,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.relay_request_headers import RelayRequestHeaders # noqa: PLC0415
        d = dict(src_dict)
        attempt = d.pop("attempt")

        body = d.pop("body")

        delivery_id = d.pop("deliveryId")

        exchange_id = d.pop("exchangeId")

        headers = RelayRequestHeaders.from_dict(d.pop("headers"))




        kind = RelayRequestKind(d.pop("kind"))




        type_ = RelayRequestType(d.pop("type"))




        relay_request = cls(
            attempt=attempt,
            body=body,
            delivery_id=delivery_id,
            exchange_id=exchange_id,
            headers=headers,
            kind=kind,
            type_=type_,
        )

        return relay_request

