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





    def to_dict(self) -> dict[str, Any]:
        signature_profile = self.signature_profile

        signing_key = self.signing_key


        field_dict: dict[str, Any] = {}

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

        return rollout_target_out

