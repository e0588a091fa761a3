from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.subscription_created_application_evidence import SubscriptionCreatedApplicationEvidence
from ..models.subscription_created_format import SubscriptionCreatedFormat
from ..models.subscription_created_old_generation_policy import SubscriptionCreatedOldGenerationPolicy
from ..models.subscription_created_ordering import SubscriptionCreatedOrdering
from ..models.subscription_created_signature_algorithm import SubscriptionCreatedSignatureAlgorithm
from ..models.subscription_created_signature_profile import SubscriptionCreatedSignatureProfile
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.auth_view import AuthView
  from ..models.destination_view import DestinationView
  from ..models.filter_expression import FilterExpression
  from ..models.pending_challenge import PendingChallenge
  from ..models.rate_limit_view import RateLimitView
  from ..models.receipt_key_view import ReceiptKeyView
  from ..models.retry_policy_view import RetryPolicyView
  from ..models.transformation_view import TransformationView





T = TypeVar("T", bound="SubscriptionCreated")



@_attrs_define
class SubscriptionCreated:
    """ ``POST /v1/subscriptions``: the subscription, with its shared secret shown once
    (hmac-sha256 only: ``whsec_...`` or base64).

        Attributes:
            application_evidence (SubscriptionCreatedApplicationEvidence):
            auth (AuthView | None):
            consumer_id (None | str):
            created_at (str):
            endpoint (None | str):
            endpoint_digest (None | str):
            event_versions (list[int]):
            expires_at (None | str):
            filters (list[FilterExpression]): filter expressions that must all hold (empty: every event)
            format_ (SubscriptionCreatedFormat):
            generation (int):
            id (str):
            old_generation_policy (SubscriptionCreatedOldGenerationPolicy):
            ordering (SubscriptionCreatedOrdering):
            ordering_gap_timeout_s (float):
            owner (str):
            rate_limit (None | RateLimitView):
            receipt_key (None | ReceiptKeyView):
            region (str):
            retry_policy (RetryPolicyView):
            signature_algorithm (SubscriptionCreatedSignatureAlgorithm):
            signature_profile (SubscriptionCreatedSignatureProfile):
            state (str):
            tenant_id (str):
            topics (list[str]):
            updated_at (str):
            verified_generation (int | None):
            version (int):
            destination (DestinationView | Unset): A broker destination as normalised, its URI without credentials and the
                digests
                (never the credentials); a relay is ``{"type": "relay"}`` alone.
            last_reason (str | Unset):
            last_reason_detail (str | Unset):
            last_status (int | Unset):
            pending_challenge (PendingChallenge | Unset):
            secret (str | Unset):
            transformation (TransformationView | Unset): A subscription's transformation as shown: the code and its digest
                (hex sha-256 of the
                code's UTF-8 bytes, the one each transformed attempt records).
     """

    application_evidence: SubscriptionCreatedApplicationEvidence
    auth: AuthView | None
    consumer_id: None | str
    created_at: str
    endpoint: None | str
    endpoint_digest: None | str
    event_versions: list[int]
    expires_at: None | str
    filters: list[FilterExpression]
    format_: SubscriptionCreatedFormat
    generation: int
    id: str
    old_generation_policy: SubscriptionCreatedOldGenerationPolicy
    ordering: SubscriptionCreatedOrdering
    ordering_gap_timeout_s: float
    owner: str
    rate_limit: None | RateLimitView
    receipt_key: None | ReceiptKeyView
    region: str
    retry_policy: RetryPolicyView
    signature_algorithm: SubscriptionCreatedSignatureAlgorithm
    signature_profile: SubscriptionCreatedSignatureProfile
    state: str
    tenant_id: str
    topics: list[str]
    updated_at: str
    verified_generation: int | None
    version: int
    destination: DestinationView | Unset = UNSET
    last_reason: str | Unset = UNSET
    last_reason_detail: str | Unset = UNSET
    last_status: int | Unset = UNSET
    pending_challenge: PendingChallenge | Unset = UNSET
    secret: str | Unset = UNSET
    transformation: TransformationView | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.auth_view import AuthView # noqa: PLC0415
        from ..models.destination_view import DestinationView # noqa: PLC0415
        from ..models.filter_expression import FilterExpression # noqa: PLC0415
        from ..models.pending_challenge import PendingChallenge # noqa: PLC0415
        from ..models.rate_limit_view import RateLimitView # noqa: PLC0415
        from ..models.receipt_key_view import ReceiptKeyView # noqa: PLC0415
        from ..models.retry_policy_view import RetryPolicyView # noqa: PLC0415
        from ..models.transformation_view import TransformationView # noqa: PLC0415
        application_evidence = self.application_evidence.value

        auth: dict[str, Any] | None
        if isinstance(self.auth, AuthView):
            auth = self.auth.to_dict()
        else:
            auth = self.auth

        consumer_id: None | str
        consumer_id = self.consumer_id

        created_at = self.created_at

        endpoint: None | str
        endpoint = self.endpoint

        endpoint_digest: None | str
        endpoint_digest = self.endpoint_digest

        event_versions = self.event_versions



        expires_at: None | str
        expires_at = self.expires_at

        filters = []
        for componentsschemas_filters_item_data in self.filters:
            componentsschemas_filters_item = componentsschemas_filters_item_data.to_dict()
            filters.append(componentsschemas_filters_item)



        format_ = self.format_.value

        generation = self.generation

        id = self.id

        old_generation_policy = self.old_generation_policy.value

        ordering = self.ordering.value

        ordering_gap_timeout_s = self.ordering_gap_timeout_s

        owner = self.owner

        rate_limit: dict[str, Any] | None
        if isinstance(self.rate_limit, RateLimitView):
            rate_limit = self.rate_limit.to_dict()
        else:
            rate_limit = self.rate_limit

        receipt_key: dict[str, Any] | None
        if isinstance(self.receipt_key, ReceiptKeyView):
            receipt_key = self.receipt_key.to_dict()
        else:
            receipt_key = self.receipt_key

        region = self.region

        retry_policy = self.retry_policy.to_dict()

        signature_algorithm = self.signature_algorithm.value

        signature_profile = self.signature_profile.value

        state = self.state

        tenant_id = self.tenant_id

        topics = self.topics



        updated_at = self.updated_at

        verified_generation: int | None
        verified_generation = self.verified_generation

        version = self.version

        destination: dict[str, Any] | Unset = UNSET
        if not isinstance(self.destination, Unset):
            destination = self.destination.to_dict()

        last_reason = self.last_reason

        last_reason_detail = self.last_reason_detail

        last_status = self.last_status

        pending_challenge: dict[str, Any] | Unset = UNSET
        if not isinstance(self.pending_challenge, Unset):
            pending_challenge = self.pending_challenge.to_dict()

        secret = self.secret

        transformation: dict[str, Any] | Unset = UNSET
        if not isinstance(self.transformation, Unset):
            transformation = self.transformation.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "applicationEvidence": application_evidence,
            "auth": auth,
            "consumerId": consumer_id,
            "createdAt": created_at,
            "endpoint": endpoint,
            "endpointDigest": endpoint_digest,
            "eventVersions": event_versions,
            "expiresAt": expires_at,
            "filters": filters,
            "format": format_,
            "generation": generation,
            "id": id,
            "oldGenerationPolicy": old_generation_policy,
            "ordering": ordering,
            "orderingGapTimeoutS": ordering_gap_timeout_s,
            "owner": owner,
            "rateLimit": rate_limit,
            "receiptKey": receipt_key,
            "region": region,
            "retryPolicy": retry_policy,
            "signatureAlgorithm": signature_algorithm,
            "signatureProfile": signature_profile,
            "state": state,
            "tenantId": tenant_id,
            "topics": topics,
            "updatedAt": updated_at,
            "verifiedGeneration": verified_generation,
            "version": version,
        })
        if destination is not UNSET:
            field_dict["destination"] = destination
        if last_reason is not UNSET:
            field_dict["lastReason"] = last_reason
        if last_reason_detail is not UNSET:
            field_dict["lastReasonDetail"] = last_reason_detail
        if last_status is not UNSET:
            field_dict["lastStatus"] = last_status
        if pending_challenge is not UNSET:
            field_dict["pendingChallenge"] = pending_challenge
        if secret is not UNSET:
            field_dict["secret"] = secret
        if transformation is not UNSET:
            field_dict["transformation"] = transformation

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.auth_view import AuthView # noqa: PLC0415
        from ..models.destination_view import DestinationView # noqa: PLC0415
        from ..models.filter_expression import FilterExpression # noqa: PLC0415
        from ..models.pending_challenge import PendingChallenge # noqa: PLC0415
        from ..models.rate_limit_view import RateLimitView # noqa: PLC0415
        from ..models.receipt_key_view import ReceiptKeyView # noqa: PLC0415
        from ..models.retry_policy_view import RetryPolicyView # noqa: PLC0415
        from ..models.transformation_view import TransformationView # noqa: PLC0415
        d = dict(src_dict)
        application_evidence = SubscriptionCreatedApplicationEvidence(d.pop("applicationEvidence"))




        def _parse_auth(data: object) -> AuthView | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auth_type_0 = AuthView.from_dict(data)



                return auth_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AuthView | None, data)

        auth = _parse_auth(d.pop("auth"))


        def _parse_consumer_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        consumer_id = _parse_consumer_id(d.pop("consumerId"))


        created_at = d.pop("createdAt")

        def _parse_endpoint(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        endpoint = _parse_endpoint(d.pop("endpoint"))


        def _parse_endpoint_digest(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        endpoint_digest = _parse_endpoint_digest(d.pop("endpointDigest"))


        event_versions = cast(list[int], d.pop("eventVersions"))


        def _parse_expires_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        expires_at = _parse_expires_at(d.pop("expiresAt"))


        filters = []
        _filters = d.pop("filters")
        for componentsschemas_filters_item_data in (_filters):
            componentsschemas_filters_item = FilterExpression.from_dict(componentsschemas_filters_item_data)



            filters.append(componentsschemas_filters_item)


        format_ = SubscriptionCreatedFormat(d.pop("format"))




        generation = d.pop("generation")

        id = d.pop("id")

        old_generation_policy = SubscriptionCreatedOldGenerationPolicy(d.pop("oldGenerationPolicy"))




        ordering = SubscriptionCreatedOrdering(d.pop("ordering"))




        ordering_gap_timeout_s = d.pop("orderingGapTimeoutS")

        owner = d.pop("owner")

        def _parse_rate_limit(data: object) -> None | RateLimitView:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                rate_limit_type_0 = RateLimitView.from_dict(data)



                return rate_limit_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RateLimitView, data)

        rate_limit = _parse_rate_limit(d.pop("rateLimit"))


        def _parse_receipt_key(data: object) -> None | ReceiptKeyView:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                receipt_key_type_0 = ReceiptKeyView.from_dict(data)



                return receipt_key_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReceiptKeyView, data)

        receipt_key = _parse_receipt_key(d.pop("receiptKey"))


        region = d.pop("region")

        retry_policy = RetryPolicyView.from_dict(d.pop("retryPolicy"))




        signature_algorithm = SubscriptionCreatedSignatureAlgorithm(d.pop("signatureAlgorithm"))




        signature_profile = SubscriptionCreatedSignatureProfile(d.pop("signatureProfile"))




        state = d.pop("state")

        tenant_id = d.pop("tenantId")

        topics = cast(list[str], d.pop("topics"))


        updated_at = d.pop("updatedAt")

        def _parse_verified_generation(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        verified_generation = _parse_verified_generation(d.pop("verifiedGeneration"))


        version = d.pop("version")

        _destination = d.pop("destination", UNSET)
        destination: DestinationView | Unset
        if isinstance(_destination,  Unset):
            destination = UNSET
        else:
            destination = DestinationView.from_dict(_destination)




        last_reason = d.pop("lastReason", UNSET)

        last_reason_detail = d.pop("lastReasonDetail", UNSET)

        last_status = d.pop("lastStatus", UNSET)

        _pending_challenge = d.pop("pendingChallenge", UNSET)
        pending_challenge: PendingChallenge | Unset
        if isinstance(_pending_challenge,  Unset):
            pending_challenge = UNSET
        else:
            pending_challenge = PendingChallenge.from_dict(_pending_challenge)




        secret = d.pop("secret", UNSET)

        _transformation = d.pop("transformation", UNSET)
        transformation: TransformationView | Unset
        if isinstance(_transformation,  Unset):
            transformation = UNSET
        else:
            transformation = TransformationView.from_dict(_transformation)




        subscription_created = cls(
            application_evidence=application_evidence,
            auth=auth,
            consumer_id=consumer_id,
            created_at=created_at,
            endpoint=endpoint,
            endpoint_digest=endpoint_digest,
            event_versions=event_versions,
            expires_at=expires_at,
            filters=filters,
            format_=format_,
            generation=generation,
            id=id,
            old_generation_policy=old_generation_policy,
            ordering=ordering,
            ordering_gap_timeout_s=ordering_gap_timeout_s,
            owner=owner,
            rate_limit=rate_limit,
            receipt_key=receipt_key,
            region=region,
            retry_policy=retry_policy,
            signature_algorithm=signature_algorithm,
            signature_profile=signature_profile,
            state=state,
            tenant_id=tenant_id,
            topics=topics,
            updated_at=updated_at,
            verified_generation=verified_generation,
            version=version,
            destination=destination,
            last_reason=last_reason,
            last_reason_detail=last_reason_detail,
            last_status=last_status,
            pending_challenge=pending_challenge,
            secret=secret,
            transformation=transformation,
        )

        return subscription_created

