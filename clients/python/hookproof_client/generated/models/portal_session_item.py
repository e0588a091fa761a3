from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.portal_session_item_capabilities_item import PortalSessionItemCapabilitiesItem
from typing import cast






T = TypeVar("T", bound="PortalSessionItem")



@_attrs_define
class PortalSessionItem:
    """ One live session in ``GET /v1/consumers/{id}/portal-sessions``. ``capabilities`` is its
    scope; ``creator`` is ``token:<tokenId>`` (the tenant token that started it: its public
    id, as ``hookproof tenant revoke-token`` takes it), ``operator`` (``hookproof tenant
    portal-session``) or ``unknown`` (started before creators were recorded). Never the token
    or its digest.

        Attributes:
            capabilities (list[PortalSessionItemCapabilitiesItem]):
            consumer_id (str):
            created_at (str):
            creator (str):
            expires_at (str):
            id (str):
     """

    capabilities: list[PortalSessionItemCapabilitiesItem]
    consumer_id: str
    created_at: str
    creator: str
    expires_at: str
    id: str





    def to_dict(self) -> dict[str, Any]:
        capabilities = []
        for capabilities_item_data in self.capabilities:
            capabilities_item = capabilities_item_data.value
            capabilities.append(capabilities_item)



        consumer_id = self.consumer_id

        created_at = self.created_at

        creator = self.creator

        expires_at = self.expires_at

        id = self.id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "capabilities": capabilities,
            "consumerId": consumer_id,
            "createdAt": created_at,
            "creator": creator,
            "expiresAt": expires_at,
            "id": id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        capabilities = []
        _capabilities = d.pop("capabilities")
        for capabilities_item_data in (_capabilities):
            capabilities_item = PortalSessionItemCapabilitiesItem(capabilities_item_data)



            capabilities.append(capabilities_item)


        consumer_id = d.pop("consumerId")

        created_at = d.pop("createdAt")

        creator = d.pop("creator")

        expires_at = d.pop("expiresAt")

        id = d.pop("id")

        portal_session_item = cls(
            capabilities=capabilities,
            consumer_id=consumer_id,
            created_at=created_at,
            creator=creator,
            expires_at=expires_at,
            id=id,
        )

        return portal_session_item

