from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="ReplayCounts")



@_attrs_define
class ReplayCounts:
    """ What became of a replay's deliveries so far (``pending``: not reached yet).

        Attributes:
            cancelled (int):
            failed (int):
            pending (int):
            replayed (int):
     """

    cancelled: int
    failed: int
    pending: int
    replayed: int





    def to_dict(self) -> dict[str, Any]:
        cancelled = self.cancelled

        failed = self.failed

        pending = self.pending

        replayed = self.replayed


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "cancelled": cancelled,
            "failed": failed,
            "pending": pending,
            "replayed": replayed,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cancelled = d.pop("cancelled")

        failed = d.pop("failed")

        pending = d.pop("pending")

        replayed = d.pop("replayed")

        replay_counts = cls(
            cancelled=cancelled,
            failed=failed,
            pending=pending,
            replayed=replayed,
        )

        return replay_counts

