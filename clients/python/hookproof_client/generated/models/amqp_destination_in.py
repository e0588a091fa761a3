from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.amqp_destination_in_type import AmqpDestinationInType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.credentials_in import CredentialsIn





T = TypeVar("T", bound="AmqpDestinationIn")



@_attrs_define
class AmqpDestinationIn:
    """ RabbitMQ (AMQP 0-9-1): ``amqps://host:5671/<vhost>`` (the vhost percent-encoded,
    ``%2F`` for ``/``; absent: ``/``), an exchange (``""`` is the default exchange) and the
    routing key every message is published with.

        Attributes:
            exchange (str):
            type_ (AmqpDestinationInType):
            url (str):
            credentials (CredentialsIn | None | Unset):
            routing_key (str | Unset):
     """

    exchange: str
    type_: AmqpDestinationInType
    url: str
    credentials: CredentialsIn | None | Unset = UNSET
    routing_key: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.credentials_in import CredentialsIn # noqa: PLC0415
        exchange = self.exchange

        type_ = self.type_.value

        url = self.url

        credentials: dict[str, Any] | None | Unset
        if isinstance(self.credentials, Unset):
            credentials = UNSET
        elif isinstance(self.credentials, CredentialsIn):
            credentials = self.credentials.to_dict()
        else:
            credentials = self.credentials

        routing_key = self.routing_key


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "exchange": exchange,
            "type": type_,
            "url": url,
        })
        if credentials is not UNSET:
            field_dict["credentials"] = credentials
        if routing_key is not UNSET:
            field_dict["routingKey"] = routing_key

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.credentials_in import CredentialsIn # noqa: PLC0415
        d = dict(src_dict)
        exchange = d.pop("exchange")

        type_ = AmqpDestinationInType(d.pop("type"))




        url = d.pop("url")

        def _parse_credentials(data: object) -> CredentialsIn | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                credentials_type_0 = CredentialsIn.from_dict(data)



                return credentials_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CredentialsIn | None | Unset, data)

        credentials = _parse_credentials(d.pop("credentials", UNSET))


        routing_key = d.pop("routingKey", UNSET)

        amqp_destination_in = cls(
            exchange=exchange,
            type_=type_,
            url=url,
            credentials=credentials,
            routing_key=routing_key,
        )

        return amqp_destination_in

