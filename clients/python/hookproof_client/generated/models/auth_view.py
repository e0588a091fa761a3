from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.auth_view_type import AuthViewType
from ..types import UNSET, Unset






T = TypeVar("T", bound="AuthView")



@_attrs_define
class AuthView:
    """ What a reader may see of ``auth``: its kind, a digest and the public parts; never a
    secret.

        Attributes:
            digest (str):
            type_ (AuthViewType):
            certificate_sha_256 (str | Unset):
            client_id (str | Unset):
            name (str | Unset):
            token_url (str | Unset):
     """

    digest: str
    type_: AuthViewType
    certificate_sha_256: str | Unset = UNSET
    client_id: str | Unset = UNSET
    name: str | Unset = UNSET
    token_url: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        digest = self.digest

        type_ = self.type_.value

        certificate_sha_256 = self.certificate_sha_256

        client_id = self.client_id

        name = self.name

        token_url = self.token_url


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "digest": digest,
            "type": type_,
        })
        if certificate_sha_256 is not UNSET:
            field_dict["certificateSha256"] = certificate_sha_256
        if client_id is not UNSET:
            field_dict["clientId"] = client_id
        if name is not UNSET:
            field_dict["name"] = name
        if token_url is not UNSET:
            field_dict["tokenUrl"] = token_url

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        digest = d.pop("digest")

        type_ = AuthViewType(d.pop("type"))




        certificate_sha_256 = d.pop("certificateSha256", UNSET)

        client_id = d.pop("clientId", UNSET)

        name = d.pop("name", UNSET)

        token_url = d.pop("tokenUrl", UNSET)

        auth_view = cls(
            digest=digest,
            type_=type_,
            certificate_sha_256=certificate_sha_256,
            client_id=client_id,
            name=name,
            token_url=token_url,
        )

        return auth_view

