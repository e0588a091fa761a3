from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="FilterOutcomeError")



@_attrs_define
class FilterOutcomeError:
    """ Why an expression erred: ``kind`` is the CESQL TCK's (``parse``, ``math``, ``cast``,
    ``missingFunction``, ``functionEvaluation``, ``missingAttribute``, ``generic``); an
    expression that cannot be compiled is ``parse`` with its ``code``, ``dialect``, ``path``
    (a JSON Pointer into ``filters``) and, in CESQL, ``position``.

        Attributes:
            detail (str):
            kind (str):
            code (str | Unset):
            dialect (None | str | Unset):
            path (str | Unset):
            position (int | Unset):
     """

    detail: str
    kind: str
    code: str | Unset = UNSET
    dialect: None | str | Unset = UNSET
    path: str | Unset = UNSET
    position: int | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        detail = self.detail

        kind = self.kind

        code = self.code

        dialect: None | str | Unset
        if isinstance(self.dialect, Unset):
            dialect = UNSET
        else:
            dialect = self.dialect

        path = self.path

        position = self.position


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "detail": detail,
            "kind": kind,
        })
        if code is not UNSET:
            field_dict["code"] = code
        if dialect is not UNSET:
            field_dict["dialect"] = dialect
        if path is not UNSET:
            field_dict["path"] = path
        if position is not UNSET:
            field_dict["position"] = position

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        detail = d.pop("detail")

        kind = d.pop("kind")

        code = d.pop("code", UNSET)

        def _parse_dialect(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        dialect = _parse_dialect(d.pop("dialect", UNSET))


        path = d.pop("path", UNSET)

        position = d.pop("position", UNSET)

        filter_outcome_error = cls(
            detail=detail,
            kind=kind,
            code=code,
            dialect=dialect,
            path=path,
            position=position,
        )

        return filter_outcome_error

