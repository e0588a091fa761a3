from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="AmqpAnswer")



@_attrs_define
class AmqpAnswer:
    """ 
        Attributes:
            confirmed (bool | Unset):
            nacked (bool | Unset):
            reply_code (int | None | Unset):
            reply_text (None | str | Unset):
            returned (bool | Unset):
     """

    confirmed: bool | Unset = UNSET
    nacked: bool | Unset = UNSET
    reply_code: int | None | Unset = UNSET
    reply_text: None | str | Unset = UNSET
    returned: bool | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        confirmed = self.confirmed

        nacked = self.nacked

        reply_code: int | None | Unset
        if isinstance(self.reply_code, Unset):
            reply_code = UNSET
        else:
            reply_code = self.reply_code

        reply_text: None | str | Unset
        if isinstance(self.reply_text, Unset):
            reply_text = UNSET
        else:
            reply_text = self.reply_text

        returned = self.returned


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if confirmed is not UNSET:
            field_dict["confirmed"] = confirmed
        if nacked is not UNSET:
            field_dict["nacked"] = nacked
        if reply_code is not UNSET:
            field_dict["replyCode"] = reply_code
        if reply_text is not UNSET:
            field_dict["replyText"] = reply_text
        if returned is not UNSET:
            field_dict["returned"] = returned

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        confirmed = d.pop("confirmed", UNSET)

        nacked = d.pop("nacked", UNSET)

        def _parse_reply_code(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        reply_code = _parse_reply_code(d.pop("replyCode", UNSET))


        def _parse_reply_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reply_text = _parse_reply_text(d.pop("replyText", UNSET))


        returned = d.pop("returned", UNSET)

        amqp_answer = cls(
            confirmed=confirmed,
            nacked=nacked,
            reply_code=reply_code,
            reply_text=reply_text,
            returned=returned,
        )

        return amqp_answer

