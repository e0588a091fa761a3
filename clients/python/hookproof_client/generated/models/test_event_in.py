from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="TestEventIn")



@_attrs_define
class TestEventIn:
    """ ``POST /v1/subscriptions/{id}/test-events``: send the event catalogue's example of
    ``topic`` (one the subscription takes; default: its only exact topic) at major
    ``version`` (default: the newest the subscription accepts with an example) to this one
    endpoint, through the normal delivery path. The event's id is ``hookproof-test-<hex>``
    (a reserved space) and its ``event.ingested`` says ``test: true``; the log marks its
    delivery ``test``. 202 with the ingest answer.

        Attributes:
            topic (None | str | Unset):
            version (int | None | Unset):
     """

    topic: None | str | Unset = UNSET
    version: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        topic: None | str | Unset
        if isinstance(self.topic, Unset):
            topic = UNSET
        else:
            topic = self.topic

        version: int | None | Unset
        if isinstance(self.version, Unset):
            version = UNSET
        else:
            version = self.version


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if topic is not UNSET:
            field_dict["topic"] = topic
        if version is not UNSET:
            field_dict["version"] = version

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_topic(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        topic = _parse_topic(d.pop("topic", UNSET))


        def _parse_version(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        version = _parse_version(d.pop("version", UNSET))


        test_event_in = cls(
            topic=topic,
            version=version,
        )

        return test_event_in

