from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.filter_outcome_error import FilterOutcomeError





T = TypeVar("T", bound="FilterOutcome")



@_attrs_define
class FilterOutcome:
    """ One top-level expression: its value (a CESQL value for ``sql``, else whether it
    held; absent when it could not be compiled) and the first error it met.

        Attributes:
            error (FilterOutcomeError | Unset): Why an expression erred: ``kind`` is the CESQL TCK's (``parse``, ``math``,
                ``cast``,
                ``missingFunction``, ``functionEvaluation``, ``missingAttribute``, ``generic``); an
                expression that cannot be compiled is ``parse`` with its ``code``, ``dialect``, ``path``
                (a JSON Pointer into ``filters``) and, in CESQL, ``position``.
            value (bool | int | str | Unset):
     """

    error: FilterOutcomeError | Unset = UNSET
    value: bool | int | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.filter_outcome_error import FilterOutcomeError # noqa: PLC0415
        error: dict[str, Any] | Unset = UNSET
        if not isinstance(self.error, Unset):
            error = self.error.to_dict()

        value: bool | int | str | Unset
        if isinstance(self.value, Unset):
            value = UNSET
        else:
            value = self.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if error is not UNSET:
            field_dict["error"] = error
        if value is not UNSET:
            field_dict["value"] = value

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.filter_outcome_error import FilterOutcomeError # noqa: PLC0415
        d = dict(src_dict)
        _error = d.pop("error", UNSET)
        error: FilterOutcomeError | Unset
        if isinstance(_error,  Unset):
            error = UNSET
        else:
            error = FilterOutcomeError.from_dict(_error)




        def _parse_value(data: object) -> bool | int | str | Unset:
            if isinstance(data, Unset):
                return data
            return cast(bool | int | str | Unset, data)

        value = _parse_value(d.pop("value", UNSET))


        filter_outcome = cls(
            error=error,
            value=value,
        )

        return filter_outcome

