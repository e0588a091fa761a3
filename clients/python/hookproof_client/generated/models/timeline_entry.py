from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="TimelineEntry")



@_attrs_define
class TimelineEntry:
    """ One recorded event of a timeline, what it did and the evidence after it.

        Attributes:
            actor (None | str):
            evidence (str):
            generation (int | None):
            key_id (None | str):
            outcome (str):
            position (int):
            recorded_at (str):
            state (str):
            stream_id (str):
            type_ (str):
            version (int):
     """

    actor: None | str
    evidence: str
    generation: int | None
    key_id: None | str
    outcome: str
    position: int
    recorded_at: str
    state: str
    stream_id: str
    type_: str
    version: int





    def to_dict(self) -> dict[str, Any]:
        actor: None | str
        actor = self.actor

        evidence = self.evidence

        generation: int | None
        generation = self.generation

        key_id: None | str
        key_id = self.key_id

        outcome = self.outcome

        position = self.position

        recorded_at = self.recorded_at

        state = self.state

        stream_id = self.stream_id

        type_ = self.type_

        version = self.version


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "actor": actor,
            "evidence": evidence,
            "generation": generation,
            "keyId": key_id,
            "outcome": outcome,
            "position": position,
            "recordedAt": recorded_at,
            "state": state,
            "streamId": stream_id,
            "type": type_,
            "version": version,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_actor(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        actor = _parse_actor(d.pop("actor"))


        evidence = d.pop("evidence")

        def _parse_generation(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        generation = _parse_generation(d.pop("generation"))


        def _parse_key_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        key_id = _parse_key_id(d.pop("keyId"))


        outcome = d.pop("outcome")

        position = d.pop("position")

        recorded_at = d.pop("recordedAt")

        state = d.pop("state")

        stream_id = d.pop("streamId")

        type_ = d.pop("type")

        version = d.pop("version")

        timeline_entry = cls(
            actor=actor,
            evidence=evidence,
            generation=generation,
            key_id=key_id,
            outcome=outcome,
            position=position,
            recorded_at=recorded_at,
            state=state,
            stream_id=stream_id,
            type_=type_,
            version=version,
        )

        return timeline_entry

