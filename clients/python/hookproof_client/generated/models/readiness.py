from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.readiness_status import ReadinessStatus






T = TypeVar("T", bound="Readiness")



@_attrs_define
class Readiness:
    """ ``GET /readyz`` (200): the database answers, its schema is current and the master key
    opens its sealed material (else 503).

        Attributes:
            status (ReadinessStatus):
     """

    status: ReadinessStatus





    def to_dict(self) -> dict[str, Any]:
        status = self.status.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "status": status,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        status = ReadinessStatus(d.pop("status"))




        readiness = cls(
            status=status,
        )

        return readiness

