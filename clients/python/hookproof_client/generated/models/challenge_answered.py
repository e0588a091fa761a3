from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="ChallengeAnswered")



@_attrs_define
class ChallengeAnswered:
    """ ``POST /v1/challenges/{challengeId}/response``: the broker challenge passed.

        Attributes:
            challenge_id (str):
            passed (bool):
            reason (None | str):
     """

    challenge_id: str
    passed: bool
    reason: None | str





    def to_dict(self) -> dict[str, Any]:
        challenge_id = self.challenge_id

        passed = self.passed

        reason: None | str
        reason = self.reason


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "challengeId": challenge_id,
            "passed": passed,
            "reason": reason,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        challenge_id = d.pop("challengeId")

        passed = d.pop("passed")

        def _parse_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reason = _parse_reason(d.pop("reason"))


        challenge_answered = cls(
            challenge_id=challenge_id,
            passed=passed,
            reason=reason,
        )

        return challenge_answered

