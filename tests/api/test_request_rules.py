"""The document's request constraints are the ones the handlers enforce (issue 49), from the
same declarations: the patterns the checks compile, the recoverable states, the branding's
origins, and the alternatives a body must take."""

from __future__ import annotations

import re

import pytest

from hookproof.engine.api.openapi import openapi_document
from hookproof.engine.delivery.recover import recoverable_states
from hookproof.engine.ingest import event_checks
from hookproof.engine.portal.branding import check_branding
from hookproof.errors import ValidationError
from hookproof.events.delivery_events import EVENT_ID
from hookproof.schemas import api
from hookproof.schemas.api import PortalBrandingIn

SCHEMAS = openapi_document()["components"]["schemas"]


def test_the_checks_compile_the_documented_patterns() -> None:
    event = SCHEMAS["EventIn"]["properties"]
    assert event["eventId"]["pattern"] == EVENT_ID.pattern == api.EVENT_ID_PATTERN
    assert event["version"]["pattern"] == event_checks._VERSION.pattern
    assert event["occurredAt"]["format"] == "date-time"
    names = event["extensions"]["anyOf"][0]["propertyNames"]["pattern"]
    assert names == event_checks.EXTENSION_NAME.pattern


def test_recover_states_are_the_ledgers() -> None:
    states = SCHEMAS["RecoverIn"]["properties"]["states"]["anyOf"][0]["items"]["enum"]
    assert set(states) == recoverable_states()


@pytest.mark.parametrize(
    "origin",
    ["https://a.example.com", "https://A.example.com:8443", "https://x.io/", "https://h:1"],
)
def test_a_documented_origin_is_accepted(origin: str) -> None:
    assert re.fullmatch(api.HTTPS_ORIGIN_PATTERN, origin)
    check_branding(PortalBrandingIn(frame_ancestors=[origin]))


@pytest.mark.parametrize(
    "origin", ["http://a.com", "https://a..b", "https://a.com/x", "https://a.com:0", "https://u@a"]
)
def test_an_origin_outside_the_pattern_is_refused(origin: str) -> None:
    assert not re.fullmatch(api.HTTPS_ORIGIN_PATTERN, origin)
    with pytest.raises(ValidationError):
        check_branding(PortalBrandingIn(frame_ancestors=[origin]))


def test_alternatives_and_required_members() -> None:
    create = SCHEMAS["SubscriptionCreate"]
    assert create["x-required-any-of"] == [["endpoint"], ["destination"]]
    version = SCHEMAS["EventTypeVersionIn"]
    assert version["required"] == ["example", "schema"]
    kinds = [v["type"] for v in version["properties"]["schema"]["anyOf"]]
    assert kinds == ["object", "boolean"]
