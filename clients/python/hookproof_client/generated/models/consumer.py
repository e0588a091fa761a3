from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.consumer_state import ConsumerState
from typing import cast

if TYPE_CHECKING:
  from ..models.consumer_metadata import ConsumerMetadata





T = TypeVar("T", bound="Consumer")



@_attrs_define
class Consumer:
    """ 
        Attributes:
            created_at (str):
            disabled (bool):
            id (str):
            metadata (ConsumerMetadata): the tenant's own members (any JSON values; at most 4,096 bytes as JSON)
            name (str):
            state (ConsumerState):
            tenant_id (str):
            updated_at (str):
            version (int):
     """

    created_at: str
    disabled: bool
    id: str
    metadata: ConsumerMetadata
    name: str
    state: ConsumerState
    tenant_id: str
    updated_at: str
    version: int





    def to_dict(self) -> dict[str, Any]:
        from ..models.consumer_metadata import ConsumerMetadata # noqa: PLC0415
        created_at = self.created_at

        disabled = self.disabled

        id = self.id

        metadata = self.metadata.to_dict()

        name = self.name

        state = self.state.value

        tenant_id = self.tenant_id

        updated_at = self.updated_at

        version = self.version


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "createdAt": created_at,
            "disabled": disabled,
            "id": id,
            "metadata": metadata,
            "name": name,
            "state": state,
            "tenantId": tenant_id,
            "updatedAt": updated_at,
            "version": version,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.consumer_metadata import ConsumerMetadata # noqa: PLC0415
        d = dict(src_dict)
        created_at = d.pop("createdAt")

        disabled = d.pop("disabled")

        id = d.pop("id")

        metadata = ConsumerMetadata.from_dict(d.pop("metadata"))




        name = d.pop("name")

        state = ConsumerState(d.pop("state"))




        tenant_id = d.pop("tenantId")

        updated_at = d.pop("updatedAt")

        version = d.pop("version")

        consumer = cls(
            created_at=created_at,
            disabled=disabled,
            id=id,
            metadata=metadata,
            name=name,
            state=state,
            tenant_id=tenant_id,
            updated_at=updated_at,
            version=version,
        )

        return consumer

