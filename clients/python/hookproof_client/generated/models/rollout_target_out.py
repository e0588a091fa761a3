from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="RolloutTargetOut")



@_attrs_define
class RolloutTargetOut:
    """ 
        Attributes:
            signature_profile (str | Unset):
            signing_key (str | Unset):
     """

    signature_profile: str | Unset = UNSET
    signing_key: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        signature_profile = self.signature_profile

        signing_key = self.signing_key


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if signature_profile is not UNSET:
            field_dict["signatureProfile"] = signature_profile
        if signing_key is not UNSET:
            field_dict["signingKey"] = signing_key

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        signature_profile = d.pop("signatureProfile", UNSET)

        signing_key = d.pop("signingKey", UNSET)

        rollout_target_out = cls(
            signature_profile=signature_profile,
            signing_key=signing_key,
        )


        rollout_target_out.additional_properties = d
        return rollout_target_out

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
