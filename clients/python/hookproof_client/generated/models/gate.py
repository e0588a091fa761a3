from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.gate_detail import GateDetail





T = TypeVar("T", bound="Gate")



@_attrs_define
class Gate:
    """ A release gate's result (``status``: pass, fail, n/a or UNOBSERVABLE).

        Attributes:
            detail (GateDetail):
            examples (list[str]):
            gate (str):
            status (str):
            threshold (str):
            title (str):
            value (float | int | None):
     """

    detail: GateDetail
    examples: list[str]
    gate: str
    status: str
    threshold: str
    title: str
    value: float | int | None





    def to_dict(self) -> dict[str, Any]:
        from ..models.gate_detail import GateDetail # noqa: PLC0415
        detail = self.detail.to_dict()

        examples = self.examples



        gate = self.gate

        status = self.status

        threshold = self.threshold

        title = self.title

        value: float | int | None
        value = self.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "detail": detail,
            "examples": examples,
            "gate": gate,
            "status": status,
            "threshold": threshold,
            "title": title,
            "value": value,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.gate_detail import GateDetail # noqa: PLC0415
        d = dict(src_dict)
        detail = GateDetail.from_dict(d.pop("detail"))




        examples = cast(list[str], d.pop("examples"))


        gate = d.pop("gate")

        status = d.pop("status")

        threshold = d.pop("threshold")

        title = d.pop("title")

        def _parse_value(data: object) -> float | int | None:
            if data is None:
                return data
            return cast(float | int | None, data)

        value = _parse_value(d.pop("value"))


        gate = cls(
            detail=detail,
            examples=examples,
            gate=gate,
            status=status,
            threshold=threshold,
            title=title,
            value=value,
        )

        return gate

