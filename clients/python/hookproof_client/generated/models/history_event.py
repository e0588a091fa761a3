from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.history_event_data import HistoryEventData





T = TypeVar("T", bound="HistoryEvent")



@_attrs_define
class HistoryEvent:
    """ One recorded event of a subscription's stream (``data`` with secrets redacted).

        Attributes:
            actor (None | str):
            data (HistoryEventData):
            event_id (str):
            global_position (int):
            hash_ (str):
            recorded_at (str):
            schema_version (int):
            stream_version (int):
            type_ (str):
     """

    actor: None | str
    data: HistoryEventData
    event_id: str
    global_position: int
    hash_: str
    recorded_at: str
    schema_version: int
    stream_version: int
    type_: str





    def to_dict(self) -> dict[str, Any]:
        from ..models.history_event_data import HistoryEventData # noqa: PLC0415
        actor: None | str
        actor = self.actor

        data = self.data.to_dict()

        event_id = self.event_id

        global_position = self.global_position

        hash_ = self.hash_

        recorded_at = self.recorded_at

        schema_version = self.schema_version

        stream_version = self.stream_version

        type_ = self.type_


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "actor": actor,
            "data": data,
            "eventId": event_id,
            "globalPosition": global_position,
            "hash": hash_,
            "recordedAt": recorded_at,
            "schemaVersion": schema_version,
            "streamVersion": stream_version,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.history_event_data import HistoryEventData # noqa: PLC0415
        d = dict(src_dict)
        def _parse_actor(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        actor = _parse_actor(d.pop("actor"))


        data = HistoryEventData.from_dict(d.pop("data"))




        event_id = d.pop("eventId")

        global_position = d.pop("globalPosition")

        hash_ = d.pop("hash")

        recorded_at = d.pop("recordedAt")

        schema_version = d.pop("schemaVersion")

        stream_version = d.pop("streamVersion")

        type_ = d.pop("type")

        history_event = cls(
            actor=actor,
            data=data,
            event_id=event_id,
            global_position=global_position,
            hash_=hash_,
            recorded_at=recorded_at,
            schema_version=schema_version,
            stream_version=stream_version,
            type_=type_,
        )

        return history_event

