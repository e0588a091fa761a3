from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.destination_view_type import DestinationViewType
from ..types import UNSET, Unset






T = TypeVar("T", bound="DestinationView")



@_attrs_define
class DestinationView:
    """ A broker destination as normalised, its URI without credentials and the digests
    (never the credentials); a relay is ``{"type": "relay"}`` alone.

        Attributes:
            type_ (DestinationViewType):
            credentials_digest (str | Unset):
            destination_digest (str | Unset):
            exchange (str | Unset):
            routing_key (str | Unset):
            stream (str | Unset):
            subject (str | Unset):
            uri (str | Unset):
            url (str | Unset):
     """

    type_: DestinationViewType
    credentials_digest: str | Unset = UNSET
    destination_digest: str | Unset = UNSET
    exchange: str | Unset = UNSET
    routing_key: str | Unset = UNSET
    stream: str | Unset = UNSET
    subject: str | Unset = UNSET
    uri: str | Unset = UNSET
    url: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        credentials_digest = self.credentials_digest

        destination_digest = self.destination_digest

        exchange = self.exchange

        routing_key = self.routing_key

        stream = self.stream

        subject = self.subject

        uri = self.uri

        url = self.url


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "type": type_,
        })
        if credentials_digest is not UNSET:
            field_dict["credentialsDigest"] = credentials_digest
        if destination_digest is not UNSET:
            field_dict["destinationDigest"] = destination_digest
        if exchange is not UNSET:
            field_dict["exchange"] = exchange
        if routing_key is not UNSET:
            field_dict["routingKey"] = routing_key
        if stream is not UNSET:
            field_dict["stream"] = stream
        if subject is not UNSET:
            field_dict["subject"] = subject
        if uri is not UNSET:
            field_dict["uri"] = uri
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = DestinationViewType(d.pop("type"))




        credentials_digest = d.pop("credentialsDigest", UNSET)

        destination_digest = d.pop("destinationDigest", UNSET)

        exchange = d.pop("exchange", UNSET)

        routing_key = d.pop("routingKey", UNSET)

        stream = d.pop("stream", UNSET)

        subject = d.pop("subject", UNSET)

        uri = d.pop("uri", UNSET)

        url = d.pop("url", UNSET)

        destination_view = cls(
            type_=type_,
            credentials_digest=credentials_digest,
            destination_digest=destination_digest,
            exchange=exchange,
            routing_key=routing_key,
            stream=stream,
            subject=subject,
            uri=uri,
            url=url,
        )

        return destination_view

