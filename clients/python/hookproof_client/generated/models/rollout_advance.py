from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.rollout_advance_stage import RolloutAdvanceStage
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="RolloutAdvance")



@_attrs_define
class RolloutAdvance:
    """ 
        Attributes:
            stage (RolloutAdvanceStage):
            percent (int | None | Unset):
     """

    stage: RolloutAdvanceStage
    percent: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        stage = self.stage.value

        percent: int | None | Unset
        if isinstance(self.percent, Unset):
            percent = UNSET
        else:
            percent = self.percent


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "stage": stage,
        })
        if percent is not UNSET:
            field_dict["percent"] = percent

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        stage = RolloutAdvanceStage(d.pop("stage"))




        def _parse_percent(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        percent = _parse_percent(d.pop("percent", UNSET))


        rollout_advance = cls(
            stage=stage,
            percent=percent,
        )

        return rollout_advance

