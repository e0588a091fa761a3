from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.o_auth_2_auth_in_type import OAuth2AuthInType
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="OAuth2AuthIn")



@_attrs_define
class OAuth2AuthIn:
    """ OAuth 2.0 client credentials (RFC 6749 section 4.4) against an HTTPS token URL.

        Attributes:
            client_id (str):
            client_secret (str):
            token_url (str):
            type_ (OAuth2AuthInType):
            audience (None | str | Unset):
            scope (None | str | Unset):
     """

    client_id: str
    client_secret: str
    token_url: str
    type_: OAuth2AuthInType
    audience: None | str | Unset = UNSET
    scope: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        client_id = self.client_id

        client_secret = self.client_secret

        token_url = self.token_url

        type_ = self.type_.value

        audience: None | str | Unset
        if isinstance(self.audience, Unset):
            audience = UNSET
        else:
            audience = self.audience

        scope: None | str | Unset
        if isinstance(self.scope, Unset):
            scope = UNSET
        else:
            scope = self.scope


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "clientId": client_id,
            "clientSecret": client_secret,
            "tokenUrl": token_url,
            "type": type_,
        })
        if audience is not UNSET:
            field_dict["audience"] = audience
        if scope is not UNSET:
            field_dict["scope"] = scope

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        client_id = d.pop("clientId")

        client_secret = d.pop("clientSecret")

        token_url = d.pop("tokenUrl")

        type_ = OAuth2AuthInType(d.pop("type"))




        def _parse_audience(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        audience = _parse_audience(d.pop("audience", UNSET))


        def _parse_scope(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        scope = _parse_scope(d.pop("scope", UNSET))


        o_auth_2_auth_in = cls(
            client_id=client_id,
            client_secret=client_secret,
            token_url=token_url,
            type_=type_,
            audience=audience,
            scope=scope,
        )

        return o_auth_2_auth_in

