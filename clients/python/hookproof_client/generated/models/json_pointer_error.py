from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="JsonPointerError")



@_attrs_define
class JsonPointerError:
    """ One way a JSON value failed its schema: where (a JSON Pointer) and why.

        Attributes:
            message (str):
            pointer (str):
     """

    message: str
    pointer: str





    def to_dict(self) -> dict[str, Any]:
        message = self.message

        pointer = self.pointer


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "message": message,
            "pointer": pointer,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        message = d.pop("message")

        pointer = d.pop("pointer")

        json_pointer_error = cls(
            message=message,
            pointer=pointer,
        )

        return json_pointer_error

