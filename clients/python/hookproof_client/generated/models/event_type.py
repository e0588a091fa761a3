from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.event_type_versions import EventTypeVersions





T = TypeVar("T", bound="EventType")



@_attrs_define
class EventType:
    """ An event type (``ETag``: its ``version``): per major version a JSON Schema and an
    example.

        Attributes:
            created_at (str):
            deprecated (bool):
            description (str):
            digest (str):
            topic (str):
            updated_at (str):
            version (int):
            versions (EventTypeVersions):
     """

    created_at: str
    deprecated: bool
    description: str
    digest: str
    topic: str
    updated_at: str
    version: int
    versions: EventTypeVersions





    def to_dict(self) -> dict[str, Any]:
        from ..models.event_type_versions import EventTypeVersions # noqa: PLC0415
        created_at = self.created_at

        deprecated = self.deprecated

        description = self.description

        digest = self.digest

        topic = self.topic

        updated_at = self.updated_at

        version = self.version

        versions = self.versions.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "createdAt": created_at,
            "deprecated": deprecated,
            "description": description,
            "digest": digest,
            "topic": topic,
            "updatedAt": updated_at,
            "version": version,
            "versions": versions,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_type_versions import EventTypeVersions # noqa: PLC0415
        d = dict(src_dict)
        created_at = d.pop("createdAt")

        deprecated = d.pop("deprecated")

        description = d.pop("description")

        digest = d.pop("digest")

        topic = d.pop("topic")

        updated_at = d.pop("updatedAt")

        version = d.pop("version")

        versions = EventTypeVersions.from_dict(d.pop("versions"))




        event_type = cls(
            created_at=created_at,
            deprecated=deprecated,
            description=description,
            digest=digest,
            topic=topic,
            updated_at=updated_at,
            version=version,
            versions=versions,
        )

        return event_type

