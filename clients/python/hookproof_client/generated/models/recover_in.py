from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.recover_in_states_type_0_item import RecoverInStatesType0Item
from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="RecoverIn")



@_attrs_define
class RecoverIn:
    """ ``POST /v1/subscriptions/{id}/recover``: deliveries in ``states`` whose state was last
    changed in ``[since, until)`` go back to RETRYABLE (at most ``limit`` per call).

        Attributes:
            since (datetime.datetime):
            limit (int | None | Unset):
            states (list[RecoverInStatesType0Item] | None | Unset):
            until (datetime.datetime | None | Unset):
     """

    since: datetime.datetime
    limit: int | None | Unset = UNSET
    states: list[RecoverInStatesType0Item] | None | Unset = UNSET
    until: datetime.datetime | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        since = self.since.isoformat()

        limit: int | None | Unset
        if isinstance(self.limit, Unset):
            limit = UNSET
        else:
            limit = self.limit

        states: list[str] | None | Unset
        if isinstance(self.states, Unset):
            states = UNSET
        elif isinstance(self.states, list):
            states = []
            for states_type_0_item_data in self.states:
                states_type_0_item = states_type_0_item_data.value
                states.append(states_type_0_item)


        else:
            states = self.states

        until: None | str | Unset
        if isinstance(self.until, Unset):
            until = UNSET
        elif isinstance(self.until, datetime.datetime):
            until = self.until.isoformat()
        else:
            until = self.until


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "since": since,
        })
        if limit is not UNSET:
            field_dict["limit"] = limit
        if states is not UNSET:
            field_dict["states"] = states
        if until is not UNSET:
            field_dict["until"] = until

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        since = datetime.datetime.fromisoformat(d.pop("since"))




        def _parse_limit(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        limit = _parse_limit(d.pop("limit", UNSET))


        def _parse_states(data: object) -> list[RecoverInStatesType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                states_type_0 = []
                _states_type_0 = data
                for states_type_0_item_data in (_states_type_0):
                    states_type_0_item = RecoverInStatesType0Item(states_type_0_item_data)



                    states_type_0.append(states_type_0_item)

                return states_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[RecoverInStatesType0Item] | None | Unset, data)

        states = _parse_states(d.pop("states", UNSET))


        def _parse_until(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                until_type_0 = datetime.datetime.fromisoformat(data)



                return until_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        until = _parse_until(d.pop("until", UNSET))


        recover_in = cls(
            since=since,
            limit=limit,
            states=states,
            until=until,
        )

        return recover_in

