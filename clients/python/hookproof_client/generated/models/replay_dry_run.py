from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="ReplayDryRun")



@_attrs_define
class ReplayDryRun:
    """ A dry run: how many deliveries a replay of this search would take, and some of them.

        Attributes:
            count (int):
            dry_run (bool):
            query_digest (str):
            sample (list[str]):
     """

    count: int
    dry_run: bool
    query_digest: str
    sample: list[str]





    def to_dict(self) -> dict[str, Any]:
        count = self.count

        dry_run = self.dry_run

        query_digest = self.query_digest

        sample = self.sample




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "count": count,
            "dryRun": dry_run,
            "queryDigest": query_digest,
            "sample": sample,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        count = d.pop("count")

        dry_run = d.pop("dryRun")

        query_digest = d.pop("queryDigest")

        sample = cast(list[str], d.pop("sample"))


        replay_dry_run = cls(
            count=count,
            dry_run=dry_run,
            query_digest=query_digest,
            sample=sample,
        )

        return replay_dry_run

