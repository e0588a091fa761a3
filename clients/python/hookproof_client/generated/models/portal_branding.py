from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="PortalBranding")



@_attrs_define
class PortalBranding:
    """ ``GET /v1/portal/branding`` (the tenant, or a portal session of one of its consumers):
    the branding as set, ``null`` fields where none is.

        Attributes:
            accent_colour (None | str):
            display_name (None | str):
            frame_ancestors (list[str]):
            logo_url (None | str):
     """

    accent_colour: None | str
    display_name: None | str
    frame_ancestors: list[str]
    logo_url: None | str





    def to_dict(self) -> dict[str, Any]:
        accent_colour: None | str
        accent_colour = self.accent_colour

        display_name: None | str
        display_name = self.display_name

        frame_ancestors = self.frame_ancestors



        logo_url: None | str
        logo_url = self.logo_url


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "accentColour": accent_colour,
            "displayName": display_name,
            "frameAncestors": frame_ancestors,
            "logoUrl": logo_url,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_accent_colour(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        accent_colour = _parse_accent_colour(d.pop("accentColour"))


        def _parse_display_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        display_name = _parse_display_name(d.pop("displayName"))


        frame_ancestors = cast(list[str], d.pop("frameAncestors"))


        def _parse_logo_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        logo_url = _parse_logo_url(d.pop("logoUrl"))


        portal_branding = cls(
            accent_colour=accent_colour,
            display_name=display_name,
            frame_ancestors=frame_ancestors,
            logo_url=logo_url,
        )

        return portal_branding

