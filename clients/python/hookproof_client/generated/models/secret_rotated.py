from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="SecretRotated")



@_attrs_define
class SecretRotated:
    """ ``POST /v1/subscriptions/{id}/secret/rotate``: the next shared secret, shown once.

        Attributes:
            key_id (str):
            secret (str):
            replaced_key_ids (list[str] | Unset):
     """

    key_id: str
    secret: str
    replaced_key_ids: list[str] | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        key_id = self.key_id

        secret = self.secret

        replaced_key_ids: list[str] | Unset = UNSET
        if not isinstance(self.replaced_key_ids, Unset):
            replaced_key_ids = self.replaced_key_ids




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "keyId": key_id,
            "secret": secret,
        })
        if replaced_key_ids is not UNSET:
            field_dict["replacedKeyIds"] = replaced_key_ids

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        key_id = d.pop("keyId")

        secret = d.pop("secret")

        replaced_key_ids = cast(list[str], d.pop("replacedKeyIds", UNSET))


        secret_rotated = cls(
            key_id=key_id,
            secret=secret,
            replaced_key_ids=replaced_key_ids,
        )

        return secret_rotated

