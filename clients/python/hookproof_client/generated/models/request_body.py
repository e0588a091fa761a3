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





    def to_dict(self) -> dict[str, Any]:
        archived = self.archived

        bytes_: int | None
        bytes_ = self.bytes_

        text: None | str
        text = self.text

        truncated = self.truncated


        field_dict: dict[str, Any] = {}

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

        return request_body

