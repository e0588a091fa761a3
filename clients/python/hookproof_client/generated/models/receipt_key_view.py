from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.jwk import Jwk





T = TypeVar("T", bound="ReceiptKeyView")



@_attrs_define
class ReceiptKeyView:
    """ The key the subscriber signs its challenge proofs and receipts with (public).

        Attributes:
            generation (int):
            key_id (str):
            public_key_jwk (Jwk): A public Ed25519 key as a JWK (RFC 8037): ``kty`` OKP, ``crv`` Ed25519, ``x`` the
                key (base64url); the engine's keys add ``kid``, ``alg``, ``use``, their ``state``,
                ``keyGeneration``, ``maxMessageLifetime`` (seconds), ``nbf`` and ``exp``.
     """

    generation: int
    key_id: str
    public_key_jwk: Jwk





    def to_dict(self) -> dict[str, Any]:
        from ..models.jwk import Jwk # noqa: PLC0415
        generation = self.generation

        key_id = self.key_id

        public_key_jwk = self.public_key_jwk.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "generation": generation,
            "keyId": key_id,
            "publicKeyJwk": public_key_jwk,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.jwk import Jwk # noqa: PLC0415
        d = dict(src_dict)
        generation = d.pop("generation")

        key_id = d.pop("keyId")

        public_key_jwk = Jwk.from_dict(d.pop("publicKeyJwk"))




        receipt_key_view = cls(
            generation=generation,
            key_id=key_id,
            public_key_jwk=public_key_jwk,
        )

        return receipt_key_view

