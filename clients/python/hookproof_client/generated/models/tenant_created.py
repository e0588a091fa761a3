from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="TenantCreated")



@_attrs_define
class TenantCreated:
    """ 
        Attributes:
            tenant_id (str):
            token (str):
     """

    tenant_id: str
    token: str





    def to_dict(self) -> dict[str, Any]:
        tenant_id = self.tenant_id

        token = self.token


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "tenantId": tenant_id,
            "token": token,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        tenant_id = d.pop("tenantId")

        token = d.pop("token")

        tenant_created = cls(
            tenant_id=tenant_id,
            token=token,
        )

        return tenant_created

