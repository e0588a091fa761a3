from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="CredentialsIn")



@_attrs_define
class CredentialsIn:
    """ Write-only broker credentials: ``username`` + ``password`` (AMQP and NATS), or for
    NATS ``token``, or ``creds`` (the text of a ``.creds`` file: JWT and NKey seed).

        Attributes:
            creds (None | str | Unset):
            password (None | str | Unset):
            token (None | str | Unset):
            username (None | str | Unset):
     """

    creds: None | str | Unset = UNSET
    password: None | str | Unset = UNSET
    token: None | str | Unset = UNSET
    username: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        creds: None | str | Unset
        if isinstance(self.creds, Unset):
            creds = UNSET
        else:
            creds = self.creds

        password: None | str | Unset
        if isinstance(self.password, Unset):
            password = UNSET
        else:
            password = self.password

        token: None | str | Unset
        if isinstance(self.token, Unset):
            token = UNSET
        else:
            token = self.token

        username: None | str | Unset
        if isinstance(self.username, Unset):
            username = UNSET
        else:
            username = self.username


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if creds is not UNSET:
            field_dict["creds"] = creds
        if password is not UNSET:
            field_dict["password"] = password
        if token is not UNSET:
            field_dict["token"] = token
        if username is not UNSET:
            field_dict["username"] = username

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_creds(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        creds = _parse_creds(d.pop("creds", UNSET))


        def _parse_password(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        password = _parse_password(d.pop("password", UNSET))


        def _parse_token(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        token = _parse_token(d.pop("token", UNSET))


        def _parse_username(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        username = _parse_username(d.pop("username", UNSET))


        credentials_in = cls(
            creds=creds,
            password=password,
            token=token,
            username=username,
        )

        return credentials_in

