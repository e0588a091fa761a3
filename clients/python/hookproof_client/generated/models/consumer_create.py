from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.consumer_create_metadata import ConsumerCreateMetadata





T = TypeVar("T", bound="ConsumerCreate")



@_attrs_define
class ConsumerCreate:
    """ ``POST /v1/consumers``: ``id`` chosen by the tenant (1..64 of ``[A-Za-z0-9._:-]``).

        Attributes:
            id (str):
            name (str):
            metadata (ConsumerCreateMetadata | Unset): the tenant's own members (any JSON values; at most 4,096 bytes as
                JSON)
     """

    id: str
    name: str
    metadata: ConsumerCreateMetadata | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.consumer_create_metadata import ConsumerCreateMetadata # noqa: PLC0415
        id = self.id

        name = self.name

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "name": name,
        })
        if metadata is not UNSET:
            field_dict["metadata"] = metadata

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.consumer_create_metadata import ConsumerCreateMetadata # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        _metadata = d.pop("metadata", UNSET)
        metadata: ConsumerCreateMetadata | Unset
        if isinstance(_metadata,  Unset):
            metadata = UNSET
        else:
            metadata = ConsumerCreateMetadata.from_dict(_metadata)




        consumer_create = cls(
            id=id,
            name=name,
            metadata=metadata,
        )

        return consumer_create

