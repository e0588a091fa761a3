from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="DeadLetterInfo")



@_attrs_define
class DeadLetterInfo:
    """ A dead letter's owner, reason and the requests that replay or skip it.

        Attributes:
            owner (None | str):
            reason (None | str):
            replay (str):
            skip (str):
     """

    owner: None | str
    reason: None | str
    replay: str
    skip: str





    def to_dict(self) -> dict[str, Any]:
        owner: None | str
        owner = self.owner

        reason: None | str
        reason = self.reason

        replay = self.replay

        skip = self.skip


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "owner": owner,
            "reason": reason,
            "replay": replay,
            "skip": skip,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_owner(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        owner = _parse_owner(d.pop("owner"))


        def _parse_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reason = _parse_reason(d.pop("reason"))


        replay = d.pop("replay")

        skip = d.pop("skip")

        dead_letter_info = cls(
            owner=owner,
            reason=reason,
            replay=replay,
            skip=skip,
        )

        return dead_letter_info

