from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="RequestBody")



@_attrs_define
class RequestBody:
    """ The body every attempt of a delivery sent: the event's canonical body (stored once per
    event), its first 64 KiB as UTF-8 ``text`` (``truncated`` beyond), ``bytes`` its size;
    ``archived`` (``text`` null) once the body has left the hot store.

        Attributes:
            archived (bool):
            bytes_ (int | None):
            text (None | str):
            truncated (bool):
     """

    archived: bool
    bytes_: int | None
    text: None | str
    truncated: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        archived = self.archived

        bytes_: int | None
        bytes_ = self.bytes_

        text: None | str
        text = self.text

        truncated = self.truncated


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "archived": archived,
            "bytes": bytes_,
            "text": text,
            "truncated": truncated,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        archived = d.pop("archived")

        def _parse_bytes_(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        bytes_ = _parse_bytes_(d.pop("bytes"))


        def _parse_text(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        text = _parse_text(d.pop("text"))


        truncated = d.pop("truncated")

        request_body = cls(
            archived=archived,
            bytes_=bytes_,
            text=text,
            truncated=truncated,
        )


        request_body.additional_properties = d
        return request_body

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
