from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ChallengeOutcome")



@_attrs_define
class ChallengeOutcome:
    """ A challenge run now: passed, or the reason it did not (``location``: a redirect's
    target; ``awaitingResponse``: a broker challenge waits for its consumer's answer;
    ``promotedKeyId``: a secret rotation's next secret proved and promoted).

        Attributes:
            challenge_id (str):
            passed (bool):
            reason (None | str):
            awaiting_response (bool | Unset):
            location (str | Unset):
            promoted_key_id (str | Unset):
     """

    challenge_id: str
    passed: bool
    reason: None | str
    awaiting_response: bool | Unset = UNSET
    location: str | Unset = UNSET
    promoted_key_id: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        challenge_id = self.challenge_id

        passed = self.passed

        reason: None | str
        reason = self.reason

        awaiting_response = self.awaiting_response

        location = self.location

        promoted_key_id = self.promoted_key_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "challengeId": challenge_id,
            "passed": passed,
            "reason": reason,
        })
        if awaiting_response is not UNSET:
            field_dict["awaitingResponse"] = awaiting_response
        if location is not UNSET:
            field_dict["location"] = location
        if promoted_key_id is not UNSET:
            field_dict["promotedKeyId"] = promoted_key_id

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


        awaiting_response = d.pop("awaitingResponse", UNSET)

        location = d.pop("location", UNSET)

        promoted_key_id = d.pop("promotedKeyId", UNSET)

        challenge_outcome = cls(
            challenge_id=challenge_id,
            passed=passed,
            reason=reason,
            awaiting_response=awaiting_response,
            location=location,
            promoted_key_id=promoted_key_id,
        )

        return challenge_outcome

