from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.receipt_key_in_public_key_jwk import ReceiptKeyInPublicKeyJwk





T = TypeVar("T", bound="ReceiptKeyIn")



@_attrs_define
class ReceiptKeyIn:
    """ 
        Attributes:
            key_id (str):
            public_key_jwk (ReceiptKeyInPublicKeyJwk): an Ed25519 public key (RFC 8037): kty OKP, crv Ed25519, x (32 bytes,
                base64url); a private key (with d) is refused
     """

    key_id: str
    public_key_jwk: ReceiptKeyInPublicKeyJwk





    def to_dict(self) -> dict[str, Any]:
        from ..models.receipt_key_in_public_key_jwk import ReceiptKeyInPublicKeyJwk # noqa: PLC0415
        key_id = self.key_id

        public_key_jwk = self.public_key_jwk.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "keyId": key_id,
            "publicKeyJwk": public_key_jwk,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.receipt_key_in_public_key_jwk import ReceiptKeyInPublicKeyJwk # noqa: PLC0415
        d = dict(src_dict)
        key_id = d.pop("keyId")

        public_key_jwk = ReceiptKeyInPublicKeyJwk.from_dict(d.pop("publicKeyJwk"))




        receipt_key_in = cls(
            key_id=key_id,
            public_key_jwk=public_key_jwk,
        )

        return receipt_key_in

