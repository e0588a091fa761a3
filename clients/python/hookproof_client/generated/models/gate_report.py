from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.gate import Gate





T = TypeVar("T", bound="GateReport")



@_attrs_define
class GateReport:
    """ 
        Attributes:
            gates (list[Gate]):
            ok (bool):
            since (None | str):
     """

    gates: list[Gate]
    ok: bool
    since: None | str





    def to_dict(self) -> dict[str, Any]:
        from ..models.gate import Gate # noqa: PLC0415
        gates = []
        for gates_item_data in self.gates:
            gates_item = gates_item_data.to_dict()
            gates.append(gates_item)



        ok = self.ok

        since: None | str
        since = self.since


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "gates": gates,
            "ok": ok,
            "since": since,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.gate import Gate # noqa: PLC0415
        d = dict(src_dict)
        gates = []
        _gates = d.pop("gates")
        for gates_item_data in (_gates):
            gates_item = Gate.from_dict(gates_item_data)



            gates.append(gates_item)


        ok = d.pop("ok")

        def _parse_since(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        since = _parse_since(d.pop("since"))


        gate_report = cls(
            gates=gates,
            ok=ok,
            since=since,
        )

        return gate_report

