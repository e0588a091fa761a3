from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.rollout_subscriptions_type_1 import RolloutSubscriptionsType1
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.rollout_cutover_figures import RolloutCutoverFigures
  from ..models.rollout_internal_figures import RolloutInternalFigures
  from ..models.rollout_shadow_figures import RolloutShadowFigures
  from ..models.rollout_switch import RolloutSwitch
  from ..models.rollout_target_out import RolloutTargetOut





T = TypeVar("T", bound="Rollout")



@_attrs_define
class Rollout:
    """ A rollout of a signing change; one read (not a list's item) adds its figures per
    stage (``shadow``, ``internal``, ``cutover``).

        Attributes:
            created_at (str):
            dual_window_s (float):
            id (str):
            internal_subscriptions (list[str]):
            pause_reason (None | str):
            percent (int):
            source_key_id (None | str):
            stage (str):
            state (str):
            subscriptions (list[str] | RolloutSubscriptionsType1):
            switches (list[RolloutSwitch]):
            target (RolloutTargetOut):
            updated_at (str):
            version (int):
            cutover (RolloutCutoverFigures | Unset):
            internal (RolloutInternalFigures | Unset):
            shadow (RolloutShadowFigures | Unset):
     """

    created_at: str
    dual_window_s: float
    id: str
    internal_subscriptions: list[str]
    pause_reason: None | str
    percent: int
    source_key_id: None | str
    stage: str
    state: str
    subscriptions: list[str] | RolloutSubscriptionsType1
    switches: list[RolloutSwitch]
    target: RolloutTargetOut
    updated_at: str
    version: int
    cutover: RolloutCutoverFigures | Unset = UNSET
    internal: RolloutInternalFigures | Unset = UNSET
    shadow: RolloutShadowFigures | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.rollout_cutover_figures import RolloutCutoverFigures # noqa: PLC0415
        from ..models.rollout_internal_figures import RolloutInternalFigures # noqa: PLC0415
        from ..models.rollout_shadow_figures import RolloutShadowFigures # noqa: PLC0415
        from ..models.rollout_switch import RolloutSwitch # noqa: PLC0415
        from ..models.rollout_target_out import RolloutTargetOut # noqa: PLC0415
        created_at = self.created_at

        dual_window_s = self.dual_window_s

        id = self.id

        internal_subscriptions = self.internal_subscriptions



        pause_reason: None | str
        pause_reason = self.pause_reason

        percent = self.percent

        source_key_id: None | str
        source_key_id = self.source_key_id

        stage = self.stage

        state = self.state

        subscriptions: list[str] | str
        if isinstance(self.subscriptions, list):
            subscriptions = self.subscriptions


        else:
            subscriptions = self.subscriptions.value


        switches = []
        for switches_item_data in self.switches:
            switches_item = switches_item_data.to_dict()
            switches.append(switches_item)



        target = self.target.to_dict()

        updated_at = self.updated_at

        version = self.version

        cutover: dict[str, Any] | Unset = UNSET
        if not isinstance(self.cutover, Unset):
            cutover = self.cutover.to_dict()

        internal: dict[str, Any] | Unset = UNSET
        if not isinstance(self.internal, Unset):
            internal = self.internal.to_dict()

        shadow: dict[str, Any] | Unset = UNSET
        if not isinstance(self.shadow, Unset):
            shadow = self.shadow.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "createdAt": created_at,
            "dualWindowS": dual_window_s,
            "id": id,
            "internalSubscriptions": internal_subscriptions,
            "pauseReason": pause_reason,
            "percent": percent,
            "sourceKeyId": source_key_id,
            "stage": stage,
            "state": state,
            "subscriptions": subscriptions,
            "switches": switches,
            "target": target,
            "updatedAt": updated_at,
            "version": version,
        })
        if cutover is not UNSET:
            field_dict["cutover"] = cutover
        if internal is not UNSET:
            field_dict["internal"] = internal
        if shadow is not UNSET:
            field_dict["shadow"] = shadow

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rollout_cutover_figures import RolloutCutoverFigures # noqa: PLC0415
        from ..models.rollout_internal_figures import RolloutInternalFigures # noqa: PLC0415
        from ..models.rollout_shadow_figures import RolloutShadowFigures # noqa: PLC0415
        from ..models.rollout_switch import RolloutSwitch # noqa: PLC0415
        from ..models.rollout_target_out import RolloutTargetOut # noqa: PLC0415
        d = dict(src_dict)
        created_at = d.pop("createdAt")

        dual_window_s = d.pop("dualWindowS")

        id = d.pop("id")

        internal_subscriptions = cast(list[str], d.pop("internalSubscriptions"))


        def _parse_pause_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        pause_reason = _parse_pause_reason(d.pop("pauseReason"))


        percent = d.pop("percent")

        def _parse_source_key_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        source_key_id = _parse_source_key_id(d.pop("sourceKeyId"))


        stage = d.pop("stage")

        state = d.pop("state")

        def _parse_subscriptions(data: object) -> list[str] | RolloutSubscriptionsType1:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                subscriptions_type_0 = cast(list[str], data)

                return subscriptions_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, str):
                raise TypeError()
            subscriptions_type_1 = RolloutSubscriptionsType1(data)



            return subscriptions_type_1

        subscriptions = _parse_subscriptions(d.pop("subscriptions"))


        switches = []
        _switches = d.pop("switches")
        for switches_item_data in (_switches):
            switches_item = RolloutSwitch.from_dict(switches_item_data)



            switches.append(switches_item)


        target = RolloutTargetOut.from_dict(d.pop("target"))




        updated_at = d.pop("updatedAt")

        version = d.pop("version")

        _cutover = d.pop("cutover", UNSET)
        cutover: RolloutCutoverFigures | Unset
        if isinstance(_cutover,  Unset):
            cutover = UNSET
        else:
            cutover = RolloutCutoverFigures.from_dict(_cutover)




        _internal = d.pop("internal", UNSET)
        internal: RolloutInternalFigures | Unset
        if isinstance(_internal,  Unset):
            internal = UNSET
        else:
            internal = RolloutInternalFigures.from_dict(_internal)




        _shadow = d.pop("shadow", UNSET)
        shadow: RolloutShadowFigures | Unset
        if isinstance(_shadow,  Unset):
            shadow = UNSET
        else:
            shadow = RolloutShadowFigures.from_dict(_shadow)




        rollout = cls(
            created_at=created_at,
            dual_window_s=dual_window_s,
            id=id,
            internal_subscriptions=internal_subscriptions,
            pause_reason=pause_reason,
            percent=percent,
            source_key_id=source_key_id,
            stage=stage,
            state=state,
            subscriptions=subscriptions,
            switches=switches,
            target=target,
            updated_at=updated_at,
            version=version,
            cutover=cutover,
            internal=internal,
            shadow=shadow,
        )

        return rollout

