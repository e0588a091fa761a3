from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import Literal, cast






T = TypeVar("T", bound="ReceiptKeyInPublicKeyJwk")



@_attrs_define
class ReceiptKeyInPublicKeyJwk:
    """ an Ed25519 public key (RFC 8037): kty OKP, crv Ed25519, x (32 bytes, base64url); a private key (with d) is refused

        Attributes:
            crv (Literal['Ed25519']):
            kty (Literal['OKP']):
            x (str):
     """

    crv: Literal['Ed25519']
    kty: Literal['OKP']
    x: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        crv = self.crv

        kty = self.kty

        x = self.x


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "crv": crv,
            "kty": kty,
            "x": x,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        crv = cast(Literal['Ed25519'] , d.pop("crv"))
        if crv != 'Ed25519':
            raise ValueError(f"crv must match const 'Ed25519', got '{crv}'")

        kty = cast(Literal['OKP'] , d.pop("kty"))
        if kty != 'OKP':
            raise ValueError(f"kty must match const 'OKP', got '{kty}'")

        x = d.pop("x")

        receipt_key_in_public_key_jwk = cls(
            crv=crv,
            kty=kty,
            x=x,
        )


        receipt_key_in_public_key_jwk.additional_properties = d
        return receipt_key_in_public_key_jwk

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
