from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.timeline_entry import TimelineEntry
  from ..models.timeline_state_type_0 import TimelineStateType0





T = TypeVar("T", bound="Timeline")



@_attrs_define
class Timeline:
    """ A delivery's or a subscription's timeline from the log, paged by ``nextCursor``.

        Attributes:
            as_of (None | str):
            entries (list[TimelineEntry]):
            id (str):
            kind (str):
            next_cursor (None | str):
            state (None | TimelineStateType0):
     """

    as_of: None | str
    entries: list[TimelineEntry]
    id: str
    kind: str
    next_cursor: None | str
    state: None | TimelineStateType0





    def to_dict(self) -> dict[str, Any]:
        from ..models.timeline_entry import TimelineEntry # noqa: PLC0415
        from ..models.timeline_state_type_0 import TimelineStateType0 # noqa: PLC0415
        as_of: None | str
        as_of = self.as_of

        entries = []
        for entries_item_data in self.entries:
            entries_item = entries_item_data.to_dict()
            entries.append(entries_item)



        id = self.id

        kind = self.kind

        next_cursor: None | str
        next_cursor = self.next_cursor

        state: dict[str, Any] | None
        if isinstance(self.state, TimelineStateType0):
            state = self.state.to_dict()
        else:
            state = self.state


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "asOf": as_of,
            "entries": entries,
            "id": id,
            "kind": kind,
            "nextCursor": next_cursor,
            "state": state,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.timeline_entry import TimelineEntry # noqa: PLC0415
        from ..models.timeline_state_type_0 import TimelineStateType0 # noqa: PLC0415
        d = dict(src_dict)
        def _parse_as_of(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        as_of = _parse_as_of(d.pop("asOf"))


        entries = []
        _entries = d.pop("entries")
        for entries_item_data in (_entries):
            entries_item = TimelineEntry.from_dict(entries_item_data)



            entries.append(entries_item)


        id = d.pop("id")

        kind = d.pop("kind")

        def _parse_next_cursor(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_cursor = _parse_next_cursor(d.pop("nextCursor"))


        def _parse_state(data: object) -> None | TimelineStateType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                state_type_0 = TimelineStateType0.from_dict(data)



                return state_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TimelineStateType0, data)

        state = _parse_state(d.pop("state"))


        timeline = cls(
            as_of=as_of,
            entries=entries,
            id=id,
            kind=kind,
            next_cursor=next_cursor,
            state=state,
        )

        return timeline

