from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="JetStreamAnswer")



@_attrs_define
class JetStreamAnswer:
    """ 
        Attributes:
            domain (None | str | Unset):
            duplicate (bool | Unset):
            seq (int | None | Unset):
            stream (None | str | Unset):
     """

    domain: None | str | Unset = UNSET
    duplicate: bool | Unset = UNSET
    seq: int | None | Unset = UNSET
    stream: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        domain: None | str | Unset
        if isinstance(self.domain, Unset):
            domain = UNSET
        else:
            domain = self.domain

        duplicate = self.duplicate

        seq: int | None | Unset
        if isinstance(self.seq, Unset):
            seq = UNSET
        else:
            seq = self.seq

        stream: None | str | Unset
        if isinstance(self.stream, Unset):
            stream = UNSET
        else:
            stream = self.stream


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if domain is not UNSET:
            field_dict["domain"] = domain
        if duplicate is not UNSET:
            field_dict["duplicate"] = duplicate
        if seq is not UNSET:
            field_dict["seq"] = seq
        if stream is not UNSET:
            field_dict["stream"] = stream

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_domain(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        domain = _parse_domain(d.pop("domain", UNSET))


        duplicate = d.pop("duplicate", UNSET)

        def _parse_seq(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        seq = _parse_seq(d.pop("seq", UNSET))


        def _parse_stream(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        stream = _parse_stream(d.pop("stream", UNSET))


        jet_stream_answer = cls(
            domain=domain,
            duplicate=duplicate,
            seq=seq,
            stream=stream,
        )

        return jet_stream_answer

