from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.amqp_answer import AmqpAnswer
  from ..models.jet_stream_answer import JetStreamAnswer





T = TypeVar("T", bound="BrokerAnswer")



@_attrs_define
class BrokerAnswer:
    """ A broker's answer to one publish, as its tenant sees it (never a credential).

        Attributes:
            amqp (AmqpAnswer | None):
            code (None | str):
            connection_reused (bool):
            credentials_digest (None | str):
            destination (None | str):
            jetstream (JetStreamAnswer | None):
            message_id (None | str):
            outcome (None | str):
            peer_address (None | str):
            peer_port (int | None):
            published (bool):
            spki_sha_256 (None | str):
            tls (bool):
            type_ (None | str):
     """

    amqp: AmqpAnswer | None
    code: None | str
    connection_reused: bool
    credentials_digest: None | str
    destination: None | str
    jetstream: JetStreamAnswer | None
    message_id: None | str
    outcome: None | str
    peer_address: None | str
    peer_port: int | None
    published: bool
    spki_sha_256: None | str
    tls: bool
    type_: None | str





    def to_dict(self) -> dict[str, Any]:
        from ..models.amqp_answer import AmqpAnswer # noqa: PLC0415
        from ..models.jet_stream_answer import JetStreamAnswer # noqa: PLC0415
        amqp: dict[str, Any] | None
        if isinstance(self.amqp, AmqpAnswer):
            amqp = self.amqp.to_dict()
        else:
            amqp = self.amqp

        code: None | str
        code = self.code

        connection_reused = self.connection_reused

        credentials_digest: None | str
        credentials_digest = self.credentials_digest

        destination: None | str
        destination = self.destination

        jetstream: dict[str, Any] | None
        if isinstance(self.jetstream, JetStreamAnswer):
            jetstream = self.jetstream.to_dict()
        else:
            jetstream = self.jetstream

        message_id: None | str
        message_id = self.message_id

        outcome: None | str
        outcome = self.outcome

        peer_address: None | str
        peer_address = self.peer_address

        peer_port: int | None
        peer_port = self.peer_port

        published = self.published

        spki_sha_256: None | str
        spki_sha_256 = self.spki_sha_256

        tls = self.tls

        type_: None | str
        type_ = self.type_


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "amqp": amqp,
            "code": code,
            "connectionReused": connection_reused,
            "credentialsDigest": credentials_digest,
            "destination": destination,
            "jetstream": jetstream,
            "messageId": message_id,
            "outcome": outcome,
            "peerAddress": peer_address,
            "peerPort": peer_port,
            "published": published,
            "spkiSha256": spki_sha_256,
            "tls": tls,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.amqp_answer import AmqpAnswer # noqa: PLC0415
        from ..models.jet_stream_answer import JetStreamAnswer # noqa: PLC0415
        d = dict(src_dict)
        def _parse_amqp(data: object) -> AmqpAnswer | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                amqp_type_0 = AmqpAnswer.from_dict(data)



                return amqp_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AmqpAnswer | None, data)

        amqp = _parse_amqp(d.pop("amqp"))


        def _parse_code(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        code = _parse_code(d.pop("code"))


        connection_reused = d.pop("connectionReused")

        def _parse_credentials_digest(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        credentials_digest = _parse_credentials_digest(d.pop("credentialsDigest"))


        def _parse_destination(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        destination = _parse_destination(d.pop("destination"))


        def _parse_jetstream(data: object) -> JetStreamAnswer | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                jetstream_type_0 = JetStreamAnswer.from_dict(data)



                return jetstream_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JetStreamAnswer | None, data)

        jetstream = _parse_jetstream(d.pop("jetstream"))


        def _parse_message_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        message_id = _parse_message_id(d.pop("messageId"))


        def _parse_outcome(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        outcome = _parse_outcome(d.pop("outcome"))


        def _parse_peer_address(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        peer_address = _parse_peer_address(d.pop("peerAddress"))


        def _parse_peer_port(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        peer_port = _parse_peer_port(d.pop("peerPort"))


        published = d.pop("published")

        def _parse_spki_sha_256(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        spki_sha_256 = _parse_spki_sha_256(d.pop("spkiSha256"))


        tls = d.pop("tls")

        def _parse_type_(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        type_ = _parse_type_(d.pop("type"))


        broker_answer = cls(
            amqp=amqp,
            code=code,
            connection_reused=connection_reused,
            credentials_digest=credentials_digest,
            destination=destination,
            jetstream=jetstream,
            message_id=message_id,
            outcome=outcome,
            peer_address=peer_address,
            peer_port=peer_port,
            published=published,
            spki_sha_256=spki_sha_256,
            tls=tls,
            type_=type_,
        )

        return broker_answer

