from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.retry_policy_view_on_gone import RetryPolicyViewOnGone






T = TypeVar("T", bound="RetryPolicyView")



@_attrs_define
class RetryPolicyView:
    """ 
        Attributes:
            initial_delay_s (float):
            max_attempts (int):
            max_delay_s (float):
            multiplier (float):
            on_gone (RetryPolicyViewOnGone):
            retry_after_cap_s (float):
     """

    initial_delay_s: float
    max_attempts: int
    max_delay_s: float
    multiplier: float
    on_gone: RetryPolicyViewOnGone
    retry_after_cap_s: float





    def to_dict(self) -> dict[str, Any]:
        initial_delay_s = self.initial_delay_s

        max_attempts = self.max_attempts

        max_delay_s = self.max_delay_s

        multiplier = self.multiplier

        on_gone = self.on_gone.value

        retry_after_cap_s = self.retry_after_cap_s


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "initialDelayS": initial_delay_s,
            "maxAttempts": max_attempts,
            "maxDelayS": max_delay_s,
            "multiplier": multiplier,
            "onGone": on_gone,
            "retryAfterCapS": retry_after_cap_s,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        initial_delay_s = d.pop("initialDelayS")

        max_attempts = d.pop("maxAttempts")

        max_delay_s = d.pop("maxDelayS")

        multiplier = d.pop("multiplier")

        on_gone = RetryPolicyViewOnGone(d.pop("onGone"))




        retry_after_cap_s = d.pop("retryAfterCapS")

        retry_policy_view = cls(
            initial_delay_s=initial_delay_s,
            max_attempts=max_attempts,
            max_delay_s=max_delay_s,
            multiplier=multiplier,
            on_gone=on_gone,
            retry_after_cap_s=retry_after_cap_s,
        )

        return retry_policy_view

