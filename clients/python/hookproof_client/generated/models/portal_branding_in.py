from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="PortalBrandingIn")



@_attrs_define
class PortalBrandingIn:
    """ ``PUT /v1/portal/branding`` (a tenant token): how the tenant's customers see the portal,
    replaced whole. ``displayName`` 1..80 printable characters; ``logoUrl`` an ``https://`` URL
    (no credentials, at most 500 characters); ``accentColour`` ``#rrggbb``, dark enough for
    white text on it (contrast at least 4.5:1); ``frameAncestors``: at most 10 origins
    (``https://host[:port]``) allowed to embed ``/portal/{tenantId}`` in a frame (default none:
    the portal cannot be framed). Refusals: ``invalid_display_name``, ``invalid_logo_url``,
    ``invalid_accent_colour``, ``low_contrast_accent``, ``invalid_frame_ancestor``.

        Attributes:
            accent_colour (None | str | Unset):
            display_name (None | str | Unset):
            frame_ancestors (list[str] | Unset):
            logo_url (None | str | Unset):
     """

    accent_colour: None | str | Unset = UNSET
    display_name: None | str | Unset = UNSET
    frame_ancestors: list[str] | Unset = UNSET
    logo_url: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        accent_colour: None | str | Unset
        if isinstance(self.accent_colour, Unset):
            accent_colour = UNSET
        else:
            accent_colour = self.accent_colour

        display_name: None | str | Unset
        if isinstance(self.display_name, Unset):
            display_name = UNSET
        else:
            display_name = self.display_name

        frame_ancestors: list[str] | Unset = UNSET
        if not isinstance(self.frame_ancestors, Unset):
            frame_ancestors = self.frame_ancestors



        logo_url: None | str | Unset
        if isinstance(self.logo_url, Unset):
            logo_url = UNSET
        else:
            logo_url = self.logo_url


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if accent_colour is not UNSET:
            field_dict["accentColour"] = accent_colour
        if display_name is not UNSET:
            field_dict["displayName"] = display_name
        if frame_ancestors is not UNSET:
            field_dict["frameAncestors"] = frame_ancestors
        if logo_url is not UNSET:
            field_dict["logoUrl"] = logo_url

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_accent_colour(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        accent_colour = _parse_accent_colour(d.pop("accentColour", UNSET))


        def _parse_display_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        display_name = _parse_display_name(d.pop("displayName", UNSET))


        frame_ancestors = cast(list[str], d.pop("frameAncestors", UNSET))


        def _parse_logo_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        logo_url = _parse_logo_url(d.pop("logoUrl", UNSET))


        portal_branding_in = cls(
            accent_colour=accent_colour,
            display_name=display_name,
            frame_ancestors=frame_ancestors,
            logo_url=logo_url,
        )

        return portal_branding_in

