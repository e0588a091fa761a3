from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.portal_session_started_capabilities_item import PortalSessionStartedCapabilitiesItem
from typing import cast






T = TypeVar("T", bound="PortalSessionStarted")



@_attrs_define
class PortalSessionStarted:
    """ ``POST /v1/consumers/{id}/portal-sessions``: the token and the console link, once.

        Attributes:
            capabilities (list[PortalSessionStartedCapabilitiesItem]):
            consumer_id (str):
            embed_url (str):
            expires_at (str):
            session_id (str):
            token (str):
            url (str):
     """

    capabilities: list[PortalSessionStartedCapabilitiesItem]
    consumer_id: str
    embed_url: str
    expires_at: str
    session_id: str
    token: str
    url: str





    def to_dict(self) -> dict[str, Any]:
        capabilities = []
        for capabilities_item_data in self.capabilities:
            capabilities_item = capabilities_item_data.value
            capabilities.append(capabilities_item)



        consumer_id = self.consumer_id

        embed_url = self.embed_url

        expires_at = self.expires_at

        session_id = self.session_id

        token = self.token

        url = self.url


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "capabilities": capabilities,
            "consumerId": consumer_id,
            "embedUrl": embed_url,
            "expiresAt": expires_at,
            "sessionId": session_id,
            "token": token,
            "url": url,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        capabilities = []
        _capabilities = d.pop("capabilities")
        for capabilities_item_data in (_capabilities):
            capabilities_item = PortalSessionStartedCapabilitiesItem(capabilities_item_data)



            capabilities.append(capabilities_item)


        consumer_id = d.pop("consumerId")

        embed_url = d.pop("embedUrl")

        expires_at = d.pop("expiresAt")

        session_id = d.pop("sessionId")

        token = d.pop("token")

        url = d.pop("url")

        portal_session_started = cls(
            capabilities=capabilities,
            consumer_id=consumer_id,
            embed_url=embed_url,
            expires_at=expires_at,
            session_id=session_id,
            token=token,
            url=url,
        )

        return portal_session_started

