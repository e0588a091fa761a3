from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.engine_key_rotated_reasons import EngineKeyRotatedReasons





T = TypeVar("T", bound="EngineKeyRotated")



@_attrs_define
class EngineKeyRotated:
    """ ``POST /v1/keys/rotate``: the promoted key, the subscriptions that proved it and the
    ones suspended (with their reasons).

        Attributes:
            key_generation (int):
            key_id (str):
            previous_key_id (None | str):
            proved (list[str]):
            reasons (EngineKeyRotatedReasons):
            suspended (list[str]):
     """

    key_generation: int
    key_id: str
    previous_key_id: None | str
    proved: list[str]
    reasons: EngineKeyRotatedReasons
    suspended: list[str]





    def to_dict(self) -> dict[str, Any]:
        from ..models.engine_key_rotated_reasons import EngineKeyRotatedReasons # noqa: PLC0415
        key_generation = self.key_generation

        key_id = self.key_id

        previous_key_id: None | str
        previous_key_id = self.previous_key_id

        proved = self.proved



        reasons = self.reasons.to_dict()

        suspended = self.suspended




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "keyGeneration": key_generation,
            "keyId": key_id,
            "previousKeyId": previous_key_id,
            "proved": proved,
            "reasons": reasons,
            "suspended": suspended,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.engine_key_rotated_reasons import EngineKeyRotatedReasons # noqa: PLC0415
        d = dict(src_dict)
        key_generation = d.pop("keyGeneration")

        key_id = d.pop("keyId")

        def _parse_previous_key_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        previous_key_id = _parse_previous_key_id(d.pop("previousKeyId"))


        proved = cast(list[str], d.pop("proved"))


        reasons = EngineKeyRotatedReasons.from_dict(d.pop("reasons"))




        suspended = cast(list[str], d.pop("suspended"))


        engine_key_rotated = cls(
            key_generation=key_generation,
            key_id=key_id,
            previous_key_id=previous_key_id,
            proved=proved,
            reasons=reasons,
            suspended=suspended,
        )

        return engine_key_rotated

