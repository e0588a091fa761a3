from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.event_type_in_versions import EventTypeInVersions





T = TypeVar("T", bound="EventTypeIn")



@_attrs_define
class EventTypeIn:
    """ ``PUT /v1/event-types/{topic}``: the whole definition (it replaces the one before).

        Attributes:
            description (str):
            versions (EventTypeInVersions):
            deprecated (bool | Unset):
     """

    description: str
    versions: EventTypeInVersions
    deprecated: bool | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.event_type_in_versions import EventTypeInVersions # noqa: PLC0415
        description = self.description

        versions = self.versions.to_dict()

        deprecated = self.deprecated


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "description": description,
            "versions": versions,
        })
        if deprecated is not UNSET:
            field_dict["deprecated"] = deprecated

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_type_in_versions import EventTypeInVersions # noqa: PLC0415
        d = dict(src_dict)
        description = d.pop("description")

        versions = EventTypeInVersions.from_dict(d.pop("versions"))




        deprecated = d.pop("deprecated", UNSET)

        event_type_in = cls(
            description=description,
            versions=versions,
            deprecated=deprecated,
        )

        return event_type_in

