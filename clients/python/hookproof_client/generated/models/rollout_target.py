from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.rollout_target_signature_profile_type_0 import RolloutTargetSignatureProfileType0
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="RolloutTarget")



@_attrs_define
class RolloutTarget:
    """ Exactly one of ``signatureProfile`` or ``signingKey`` (an engine key id).

        Attributes:
            signature_profile (None | RolloutTargetSignatureProfileType0 | Unset):
            signing_key (None | str | Unset):
     """

    signature_profile: None | RolloutTargetSignatureProfileType0 | Unset = UNSET
    signing_key: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        signature_profile: None | str | Unset
        if isinstance(self.signature_profile, Unset):
            signature_profile = UNSET
        elif isinstance(self.signature_profile, RolloutTargetSignatureProfileType0):
            signature_profile = self.signature_profile.value
        else:
            signature_profile = self.signature_profile

        signing_key: None | str | Unset
        if isinstance(self.signing_key, Unset):
            signing_key = UNSET
        else:
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
        def _parse_signature_profile(data: object) -> None | RolloutTargetSignatureProfileType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                signature_profile_type_0 = RolloutTargetSignatureProfileType0(data)



                return signature_profile_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RolloutTargetSignatureProfileType0 | Unset, data)

        signature_profile = _parse_signature_profile(d.pop("signatureProfile", UNSET))


        def _parse_signing_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        signing_key = _parse_signing_key(d.pop("signingKey", UNSET))


        rollout_target = cls(
            signature_profile=signature_profile,
            signing_key=signing_key,
        )

        return rollout_target

