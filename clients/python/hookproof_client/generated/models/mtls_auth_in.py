from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.mtls_auth_in_type import MtlsAuthInType






T = TypeVar("T", bound="MtlsAuthIn")



@_attrs_define
class MtlsAuthIn:
    """ A client certificate (PEM, with its chain) and its private key (PEM, unencrypted).

        Attributes:
            certificate_pem (str):
            private_key_pem (str):
            type_ (MtlsAuthInType):
     """

    certificate_pem: str
    private_key_pem: str
    type_: MtlsAuthInType





    def to_dict(self) -> dict[str, Any]:
        certificate_pem = self.certificate_pem

        private_key_pem = self.private_key_pem

        type_ = self.type_.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "certificatePem": certificate_pem,
            "privateKeyPem": private_key_pem,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        certificate_pem = d.pop("certificatePem")

        private_key_pem = d.pop("privateKeyPem")

        type_ = MtlsAuthInType(d.pop("type"))




        mtls_auth_in = cls(
            certificate_pem=certificate_pem,
            private_key_pem=private_key_pem,
            type_=type_,
        )

        return mtls_auth_in

