from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.retry_policy_in_on_gone import RetryPolicyInOnGone
from ..types import UNSET, Unset






T = TypeVar("T", bound="RetryPolicyIn")



@_attrs_define
class RetryPolicyIn:
    """ 
        Attributes:
            initial_delay_s (float | Unset): 0.001..86400 seconds
            max_attempts (int | Unset): 1..100 attempts
            max_delay_s (float | Unset): 0.001..604800 seconds
            multiplier (float | Unset): 1..10
            on_gone (RetryPolicyInOnGone | Unset):
            retry_after_cap_s (float | Unset): 0..604800 seconds
     """

    initial_delay_s: float | Unset = UNSET
    max_attempts: int | Unset = UNSET
    max_delay_s: float | Unset = UNSET
    multiplier: float | Unset = UNSET
    on_gone: RetryPolicyInOnGone | Unset = UNSET
    retry_after_cap_s: float | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        initial_delay_s = self.initial_delay_s

        max_attempts = self.max_attempts

        max_delay_s = self.max_delay_s

        multiplier = self.multiplier

        on_gone: str | Unset = UNSET
        if not isinstance(self.on_gone, Unset):
            on_gone = self.on_gone.value


        retry_after_cap_s = self.retry_after_cap_s


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if initial_delay_s is not UNSET:
            field_dict["initialDelayS"] = initial_delay_s
        if max_attempts is not UNSET:
            field_dict["maxAttempts"] = max_attempts
        if max_delay_s is not UNSET:
            field_dict["maxDelayS"] = max_delay_s
        if multiplier is not UNSET:
            field_dict["multiplier"] = multiplier
        if on_gone is not UNSET:
            field_dict["onGone"] = on_gone
        if retry_after_cap_s is not UNSET:
            field_dict["retryAfterCapS"] = retry_after_cap_s

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        initial_delay_s = d.pop("initialDelayS", UNSET)

        max_attempts = d.pop("maxAttempts", UNSET)

        max_delay_s = d.pop("maxDelayS", UNSET)

        multiplier = d.pop("multiplier", UNSET)

        _on_gone = d.pop("onGone", UNSET)
        on_gone: RetryPolicyInOnGone | Unset
        if isinstance(_on_gone,  Unset):
            on_gone = UNSET
        else:
            on_gone = RetryPolicyInOnGone(_on_gone)




        retry_after_cap_s = d.pop("retryAfterCapS", UNSET)

        retry_policy_in = cls(
            initial_delay_s=initial_delay_s,
            max_attempts=max_attempts,
            max_delay_s=max_delay_s,
            multiplier=multiplier,
            on_gone=on_gone,
            retry_after_cap_s=retry_after_cap_s,
        )

        return retry_policy_in

