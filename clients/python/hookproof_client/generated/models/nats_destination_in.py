from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.nats_destination_in_type import NatsDestinationInType
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.credentials_in import CredentialsIn





T = TypeVar("T", bound="NatsDestinationIn")



@_attrs_define
class NatsDestinationIn:
    """ NATS JetStream: ``tls://host:4222``, the subject every message is published on and
    the stream that must acknowledge it.

        Attributes:
            stream (str):
            subject (str):
            type_ (NatsDestinationInType):
            url (str):
            credentials (CredentialsIn | None | Unset):
     """

    stream: str
    subject: str
    type_: NatsDestinationInType
    url: str
    credentials: CredentialsIn | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.credentials_in import CredentialsIn # noqa: PLC0415
        stream = self.stream

        subject = self.subject

        type_ = self.type_.value

        url = self.url

        credentials: dict[str, Any] | None | Unset
        if isinstance(self.credentials, Unset):
            credentials = UNSET
        elif isinstance(self.credentials, CredentialsIn):
            credentials = self.credentials.to_dict()
        else:
            credentials = self.credentials


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "stream": stream,
            "subject": subject,
            "type": type_,
            "url": url,
        })
        if credentials is not UNSET:
            field_dict["credentials"] = credentials

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.credentials_in import CredentialsIn # noqa: PLC0415
        d = dict(src_dict)
        stream = d.pop("stream")

        subject = d.pop("subject")

        type_ = NatsDestinationInType(d.pop("type"))




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


        nats_destination_in = cls(
            stream=stream,
            subject=subject,
            type_=type_,
            url=url,
            credentials=credentials,
        )

        return nats_destination_in

