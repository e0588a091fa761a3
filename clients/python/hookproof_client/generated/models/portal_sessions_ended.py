from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="PortalSessionsEnded")



@_attrs_define
class PortalSessionsEnded:
    """ ``DELETE /v1/consumers/{id}/portal-sessions``: how many live sessions it ended.

        Attributes:
            ended (int):
     """

    ended: int





    def to_dict(self) -> dict[str, Any]:
        ended = self.ended


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "ended": ended,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        ended = d.pop("ended")

        portal_sessions_ended = cls(
            ended=ended,
        )

        return portal_sessions_ended

