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
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        key_id = self.key_id

        secret = self.secret

        replaced_key_ids: list[str] | Unset = UNSET
        if not isinstance(self.replaced_key_ids, Unset):
            replaced_key_ids = self.replaced_key_ids




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
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


        secret_rotated.additional_properties = d
        return secret_rotated

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
