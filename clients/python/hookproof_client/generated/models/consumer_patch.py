from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.consumer_patch_metadata import ConsumerPatchMetadata





T = TypeVar("T", bound="ConsumerPatch")



@_attrs_define
class ConsumerPatch:
    """ 
        Attributes:
            metadata (ConsumerPatchMetadata | Unset): the tenant's own members (any JSON values; at most 4,096 bytes as
                JSON)
            name (str | Unset):
     """

    metadata: ConsumerPatchMetadata | Unset = UNSET
    name: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.consumer_patch_metadata import ConsumerPatchMetadata # noqa: PLC0415
        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        name = self.name


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if name is not UNSET:
            field_dict["name"] = name

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.consumer_patch_metadata import ConsumerPatchMetadata # noqa: PLC0415
        d = dict(src_dict)
        _metadata = d.pop("metadata", UNSET)
        metadata: ConsumerPatchMetadata | Unset
        if isinstance(_metadata,  Unset):
            metadata = UNSET
        else:
            metadata = ConsumerPatchMetadata.from_dict(_metadata)




        name = d.pop("name", UNSET)

        consumer_patch = cls(
            metadata=metadata,
            name=name,
        )

        return consumer_patch

