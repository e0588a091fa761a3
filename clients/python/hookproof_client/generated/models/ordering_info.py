from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.ordering_gap import OrderingGap





T = TypeVar("T", bound="OrderingInfo")



@_attrs_define
class OrderingInfo:
    """ 
        Attributes:
            aggregate_id (str):
            aggregate_version (int):
            gap_timeout_s (float):
            gaps_skipped (list[OrderingGap]):
     """

    aggregate_id: str
    aggregate_version: int
    gap_timeout_s: float
    gaps_skipped: list[OrderingGap]





    def to_dict(self) -> dict[str, Any]:
        from ..models.ordering_gap import OrderingGap # noqa: PLC0415
        aggregate_id = self.aggregate_id

        aggregate_version = self.aggregate_version

        gap_timeout_s = self.gap_timeout_s

        gaps_skipped = []
        for gaps_skipped_item_data in self.gaps_skipped:
            gaps_skipped_item = gaps_skipped_item_data.to_dict()
            gaps_skipped.append(gaps_skipped_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "aggregateId": aggregate_id,
            "aggregateVersion": aggregate_version,
            "gapTimeoutS": gap_timeout_s,
            "gapsSkipped": gaps_skipped,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.ordering_gap import OrderingGap # noqa: PLC0415
        d = dict(src_dict)
        aggregate_id = d.pop("aggregateId")

        aggregate_version = d.pop("aggregateVersion")

        gap_timeout_s = d.pop("gapTimeoutS")

        gaps_skipped = []
        _gaps_skipped = d.pop("gapsSkipped")
        for gaps_skipped_item_data in (_gaps_skipped):
            gaps_skipped_item = OrderingGap.from_dict(gaps_skipped_item_data)



            gaps_skipped.append(gaps_skipped_item)


        ordering_info = cls(
            aggregate_id=aggregate_id,
            aggregate_version=aggregate_version,
            gap_timeout_s=gap_timeout_s,
            gaps_skipped=gaps_skipped,
        )

        return ordering_info

