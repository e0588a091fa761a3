from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.event_in import EventIn
  from ..models.filter_cloud_event import FilterCloudEvent
  from ..models.filter_expression import FilterExpression





T = TypeVar("T", bound="FiltersEvaluate")



@_attrs_define
class FiltersEvaluate:
    """ ``POST /v1/filters/evaluate``: a ``filters`` array (DESIGN.md section 16) and one
    event to try it on: a hookproof event (the ``POST /v1/events`` body) or a CloudEvent in
    JSON (it has ``specversion``).

        Attributes:
            event (EventIn | FilterCloudEvent): a hookproof event (the POST /v1/events body; occurredAt defaults to now) or
                a CloudEvent in JSON (it has specversion)
            filters (list[FilterExpression]): filter expressions that must all hold (empty: every event)
     """

    event: EventIn | FilterCloudEvent
    filters: list[FilterExpression]





    def to_dict(self) -> dict[str, Any]:
        from ..models.event_in import EventIn # noqa: PLC0415
        from ..models.filter_cloud_event import FilterCloudEvent # noqa: PLC0415
        from ..models.filter_expression import FilterExpression # noqa: PLC0415
        event: dict[str, Any]
        if isinstance(self.event, EventIn):
            event = self.event.to_dict()
        else:
            event = self.event.to_dict()


        filters = []
        for componentsschemas_filters_item_data in self.filters:
            componentsschemas_filters_item = componentsschemas_filters_item_data.to_dict()
            filters.append(componentsschemas_filters_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "event": event,
            "filters": filters,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_in import EventIn # noqa: PLC0415
        from ..models.filter_cloud_event import FilterCloudEvent # noqa: PLC0415
        from ..models.filter_expression import FilterExpression # noqa: PLC0415
        d = dict(src_dict)
        def _parse_event(data: object) -> EventIn | FilterCloudEvent:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                event_type_0 = EventIn.from_dict(data)



                return event_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            event_type_1 = FilterCloudEvent.from_dict(data)



            return event_type_1

        event = _parse_event(d.pop("event"))


        filters = []
        _filters = d.pop("filters")
        for componentsschemas_filters_item_data in (_filters):
            componentsschemas_filters_item = FilterExpression.from_dict(componentsschemas_filters_item_data)



            filters.append(componentsschemas_filters_item)


        filters_evaluate = cls(
            event=event,
            filters=filters,
        )

        return filters_evaluate

