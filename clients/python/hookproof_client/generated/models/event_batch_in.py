from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="EventBatchIn")



@_attrs_define
class EventBatchIn:
    """ ``POST /v1/events/batch``: up to 1,000 events, each answered on its own, in order:
    each is decoded as an :class:`EventIn` by itself, so any JSON value is a place in the
    batch (one that is not an EventIn gets its own 400 result).

        Attributes:
            events (list[Any]): each an EventIn, answered on its own (a bad one: its own 400 result)
     """

    events: list[Any]





    def to_dict(self) -> dict[str, Any]:
        events = self.events




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "events": events,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        events = cast(list[Any], d.pop("events"))


        event_batch_in = cls(
            events=events,
        )

        return event_batch_in

