from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.rollout_create_subscriptions_type_1 import RolloutCreateSubscriptionsType1
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.rollout_target import RolloutTarget





T = TypeVar("T", bound="RolloutCreate")



@_attrs_define
class RolloutCreate:
    """ 
        Attributes:
            subscriptions (list[str] | RolloutCreateSubscriptionsType1):
            target (RolloutTarget): Exactly one of ``signatureProfile`` or ``signingKey`` (an engine key id).
            dual_window_s (float | None | Unset):
            internal (list[str] | Unset):
     """

    subscriptions: list[str] | RolloutCreateSubscriptionsType1
    target: RolloutTarget
    dual_window_s: float | None | Unset = UNSET
    internal: list[str] | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.rollout_target import RolloutTarget # noqa: PLC0415
        subscriptions: list[str] | str
        if isinstance(self.subscriptions, list):
            subscriptions = self.subscriptions


        else:
            subscriptions = self.subscriptions.value


        target = self.target.to_dict()

        dual_window_s: float | None | Unset
        if isinstance(self.dual_window_s, Unset):
            dual_window_s = UNSET
        else:
            dual_window_s = self.dual_window_s

        internal: list[str] | Unset = UNSET
        if not isinstance(self.internal, Unset):
            internal = self.internal




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "subscriptions": subscriptions,
            "target": target,
        })
        if dual_window_s is not UNSET:
            field_dict["dualWindowS"] = dual_window_s
        if internal is not UNSET:
            field_dict["internal"] = internal

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rollout_target import RolloutTarget # noqa: PLC0415
        d = dict(src_dict)
        def _parse_subscriptions(data: object) -> list[str] | RolloutCreateSubscriptionsType1:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                subscriptions_type_0 = cast(list[str], data)

                return subscriptions_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, str):
                raise TypeError()
            subscriptions_type_1 = RolloutCreateSubscriptionsType1(data)



            return subscriptions_type_1

        subscriptions = _parse_subscriptions(d.pop("subscriptions"))


        target = RolloutTarget.from_dict(d.pop("target"))




        def _parse_dual_window_s(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        dual_window_s = _parse_dual_window_s(d.pop("dualWindowS", UNSET))


        internal = cast(list[str], d.pop("internal", UNSET))


        rollout_create = cls(
            subscriptions=subscriptions,
            target=target,
            dual_window_s=dual_window_s,
            internal=internal,
        )

        return rollout_create

