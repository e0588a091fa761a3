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
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





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
        field_dict.update(self.additional_properties)
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


        filter_outcome.additional_properties = d
        return filter_outcome

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
