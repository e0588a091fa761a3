from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.subscription_create_format import SubscriptionCreateFormat
from ..models.subscription_create_old_generation_policy import SubscriptionCreateOldGenerationPolicy
from ..models.subscription_create_ordering import SubscriptionCreateOrdering
from ..models.subscription_create_signature_algorithm import SubscriptionCreateSignatureAlgorithm
from ..models.subscription_create_signature_profile import SubscriptionCreateSignatureProfile
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.amqp_destination_in import AmqpDestinationIn
  from ..models.filter_expression import FilterExpression
  from ..models.header_auth_in import HeaderAuthIn
  from ..models.mtls_auth_in import MtlsAuthIn
  from ..models.nats_destination_in import NatsDestinationIn
  from ..models.o_auth_2_auth_in import OAuth2AuthIn
  from ..models.rate_limit_in import RateLimitIn
  from ..models.receipt_key_in import ReceiptKeyIn
  from ..models.relay_destination_in import RelayDestinationIn
  from ..models.retry_policy_in import RetryPolicyIn
  from ..models.subscription_create_filter_type_0 import SubscriptionCreateFilterType0
  from ..models.transformation_in import TransformationIn





T = TypeVar("T", bound="SubscriptionCreate")



@_attrs_define
class SubscriptionCreate:
    """ A subscription: an HTTPS ``endpoint``, a broker ``destination``, or both (a relay: a destination {type: relay} and
    the local endpoint); neither is a 400 endpoint_required.

        Attributes:
            event_versions (list[int]):
            owner (str):
            region (str):
            signature_algorithm (SubscriptionCreateSignatureAlgorithm):
            topics (list[str]):
            auth (HeaderAuthIn | MtlsAuthIn | None | OAuth2AuthIn | Unset):
            consumer_id (None | str | Unset):
            destination (AmqpDestinationIn | NatsDestinationIn | None | RelayDestinationIn | Unset):
            endpoint (None | str | Unset):
            expires_at (datetime.datetime | None | Unset):
            filter_ (None | SubscriptionCreateFilterType0 | Unset):
            filters (list[FilterExpression] | None | Unset):
            format_ (SubscriptionCreateFormat | Unset):
            old_generation_policy (SubscriptionCreateOldGenerationPolicy | Unset):
            ordering (SubscriptionCreateOrdering | Unset):
            ordering_gap_timeout_s (float | Unset): 0..86400 seconds
            rate_limit (None | RateLimitIn | Unset):
            receipt_key (None | ReceiptKeyIn | Unset):
            retry_policy (None | RetryPolicyIn | Unset):
            secret (None | str | Unset):
            signature_profile (SubscriptionCreateSignatureProfile | Unset):
            transformation (None | TransformationIn | Unset):
     """

    event_versions: list[int]
    owner: str
    region: str
    signature_algorithm: SubscriptionCreateSignatureAlgorithm
    topics: list[str]
    auth: HeaderAuthIn | MtlsAuthIn | None | OAuth2AuthIn | Unset = UNSET
    consumer_id: None | str | Unset = UNSET
    destination: AmqpDestinationIn | NatsDestinationIn | None | RelayDestinationIn | Unset = UNSET
    endpoint: None | str | Unset = UNSET
    expires_at: datetime.datetime | None | Unset = UNSET
    filter_: None | SubscriptionCreateFilterType0 | Unset = UNSET
    filters: list[FilterExpression] | None | Unset = UNSET
    format_: SubscriptionCreateFormat | Unset = UNSET
    old_generation_policy: SubscriptionCreateOldGenerationPolicy | Unset = UNSET
    ordering: SubscriptionCreateOrdering | Unset = UNSET
    ordering_gap_timeout_s: float | Unset = UNSET
    rate_limit: None | RateLimitIn | Unset = UNSET
    receipt_key: None | ReceiptKeyIn | Unset = UNSET
    retry_policy: None | RetryPolicyIn | Unset = UNSET
    secret: None | str | Unset = UNSET
    signature_profile: SubscriptionCreateSignatureProfile | Unset = UNSET
    transformation: None | TransformationIn | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.amqp_destination_in import AmqpDestinationIn # noqa: PLC0415
        from ..models.filter_expression import FilterExpression # noqa: PLC0415
        from ..models.header_auth_in import HeaderAuthIn # noqa: PLC0415
        from ..models.mtls_auth_in import MtlsAuthIn # noqa: PLC0415
        from ..models.nats_destination_in import NatsDestinationIn # noqa: PLC0415
        from ..models.o_auth_2_auth_in import OAuth2AuthIn # noqa: PLC0415
        from ..models.rate_limit_in import RateLimitIn # noqa: PLC0415
        from ..models.receipt_key_in import ReceiptKeyIn # noqa: PLC0415
        from ..models.relay_destination_in import RelayDestinationIn # noqa: PLC0415
        from ..models.retry_policy_in import RetryPolicyIn # noqa: PLC0415
        from ..models.subscription_create_filter_type_0 import SubscriptionCreateFilterType0 # noqa: PLC0415
        from ..models.transformation_in import TransformationIn # noqa: PLC0415
        event_versions = self.event_versions



        owner = self.owner

        region = self.region

        signature_algorithm = self.signature_algorithm.value

        topics = self.topics



        auth: dict[str, Any] | None | Unset
        if isinstance(self.auth, Unset):
            auth = UNSET
        elif isinstance(self.auth, MtlsAuthIn):
            auth = self.auth.to_dict()
        elif isinstance(self.auth, OAuth2AuthIn):
            auth = self.auth.to_dict()
        elif isinstance(self.auth, HeaderAuthIn):
            auth = self.auth.to_dict()
        else:
            auth = self.auth

        consumer_id: None | str | Unset
        if isinstance(self.consumer_id, Unset):
            consumer_id = UNSET
        else:
            consumer_id = self.consumer_id

        destination: dict[str, Any] | None | Unset
        if isinstance(self.destination, Unset):
            destination = UNSET
        elif isinstance(self.destination, AmqpDestinationIn):
            destination = self.destination.to_dict()
        elif isinstance(self.destination, NatsDestinationIn):
            destination = self.destination.to_dict()
        elif isinstance(self.destination, RelayDestinationIn):
            destination = self.destination.to_dict()
        else:
            destination = self.destination

        endpoint: None | str | Unset
        if isinstance(self.endpoint, Unset):
            endpoint = UNSET
        else:
            endpoint = self.endpoint

        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        elif isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        filter_: dict[str, Any] | None | Unset
        if isinstance(self.filter_, Unset):
            filter_ = UNSET
        elif isinstance(self.filter_, SubscriptionCreateFilterType0):
            filter_ = self.filter_.to_dict()
        else:
            filter_ = self.filter_

        filters: list[dict[str, Any]] | None | Unset
        if isinstance(self.filters, Unset):
            filters = UNSET
        elif isinstance(self.filters, list):
            filters = []
            for componentsschemas_filters_item_data in self.filters:
                componentsschemas_filters_item = componentsschemas_filters_item_data.to_dict()
                filters.append(componentsschemas_filters_item)


        else:
            filters = self.filters

        format_: str | Unset = UNSET
        if not isinstance(self.format_, Unset):
            format_ = self.format_.value


        old_generation_policy: str | Unset = UNSET
        if not isinstance(self.old_generation_policy, Unset):
            old_generation_policy = self.old_generation_policy.value


        ordering: str | Unset = UNSET
        if not isinstance(self.ordering, Unset):
            ordering = self.ordering.value


        ordering_gap_timeout_s = self.ordering_gap_timeout_s

        rate_limit: dict[str, Any] | None | Unset
        if isinstance(self.rate_limit, Unset):
            rate_limit = UNSET
        elif isinstance(self.rate_limit, RateLimitIn):
            rate_limit = self.rate_limit.to_dict()
        else:
            rate_limit = self.rate_limit

        receipt_key: dict[str, Any] | None | Unset
        if isinstance(self.receipt_key, Unset):
            receipt_key = UNSET
        elif isinstance(self.receipt_key, ReceiptKeyIn):
            receipt_key = self.receipt_key.to_dict()
        else:
            receipt_key = self.receipt_key

        retry_policy: dict[str, Any] | None | Unset
        if isinstance(self.retry_policy, Unset):
            retry_policy = UNSET
        elif isinstance(self.retry_policy, RetryPolicyIn):
            retry_policy = self.retry_policy.to_dict()
        else:
            retry_policy = self.retry_policy

        secret: None | str | Unset
        if isinstance(self.secret, Unset):
            secret = UNSET
        else:
            secret = self.secret

        signature_profile: str | Unset = UNSET
        if not isinstance(self.signature_profile, Unset):
            signature_profile = self.signature_profile.value


        transformation: dict[str, Any] | None | Unset
        if isinstance(self.transformation, Unset):
            transformation = UNSET
        elif isinstance(self.transformation, TransformationIn):
            transformation = self.transformation.to_dict()
        else:
            transformation = self.transformation


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "eventVersions": event_versions,
            "owner": owner,
            "region": region,
            "signatureAlgorithm": signature_algorithm,
            "topics": topics,
        })
        if auth is not UNSET:
            field_dict["auth"] = auth
        if consumer_id is not UNSET:
            field_dict["consumerId"] = consumer_id
        if destination is not UNSET:
            field_dict["destination"] = destination
        if endpoint is not UNSET:
            field_dict["endpoint"] = endpoint
        if expires_at is not UNSET:
            field_dict["expiresAt"] = expires_at
        if filter_ is not UNSET:
            field_dict["filter"] = filter_
        if filters is not UNSET:
            field_dict["filters"] = filters
        if format_ is not UNSET:
            field_dict["format"] = format_
        if old_generation_policy is not UNSET:
            field_dict["oldGenerationPolicy"] = old_generation_policy
        if ordering is not UNSET:
            field_dict["ordering"] = ordering
        if ordering_gap_timeout_s is not UNSET:
            field_dict["orderingGapTimeoutS"] = ordering_gap_timeout_s
        if rate_limit is not UNSET:
            field_dict["rateLimit"] = rate_limit
        if receipt_key is not UNSET:
            field_dict["receiptKey"] = receipt_key
        if retry_policy is not UNSET:
            field_dict["retryPolicy"] = retry_policy
        if secret is not UNSET:
            field_dict["secret"] = secret
        if signature_profile is not UNSET:
            field_dict["signatureProfile"] = signature_profile
        if transformation is not UNSET:
            field_dict["transformation"] = transformation

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.amqp_destination_in import AmqpDestinationIn # noqa: PLC0415
        from ..models.filter_expression import FilterExpression # noqa: PLC0415
        from ..models.header_auth_in import HeaderAuthIn # noqa: PLC0415
        from ..models.mtls_auth_in import MtlsAuthIn # noqa: PLC0415
        from ..models.nats_destination_in import NatsDestinationIn # noqa: PLC0415
        from ..models.o_auth_2_auth_in import OAuth2AuthIn # noqa: PLC0415
        from ..models.rate_limit_in import RateLimitIn # noqa: PLC0415
        from ..models.receipt_key_in import ReceiptKeyIn # noqa: PLC0415
        from ..models.relay_destination_in import RelayDestinationIn # noqa: PLC0415
        from ..models.retry_policy_in import RetryPolicyIn # noqa: PLC0415
        from ..models.subscription_create_filter_type_0 import SubscriptionCreateFilterType0 # noqa: PLC0415
        from ..models.transformation_in import TransformationIn # noqa: PLC0415
        d = dict(src_dict)
        event_versions = cast(list[int], d.pop("eventVersions"))


        owner = d.pop("owner")

        region = d.pop("region")

        signature_algorithm = SubscriptionCreateSignatureAlgorithm(d.pop("signatureAlgorithm"))




        topics = cast(list[str], d.pop("topics"))


        def _parse_auth(data: object) -> HeaderAuthIn | MtlsAuthIn | None | OAuth2AuthIn | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auth_type_0_type_0 = MtlsAuthIn.from_dict(data)



                return auth_type_0_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auth_type_0_type_1 = OAuth2AuthIn.from_dict(data)



                return auth_type_0_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auth_type_0_type_2 = HeaderAuthIn.from_dict(data)



                return auth_type_0_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HeaderAuthIn | MtlsAuthIn | None | OAuth2AuthIn | Unset, data)

        auth = _parse_auth(d.pop("auth", UNSET))


        def _parse_consumer_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        consumer_id = _parse_consumer_id(d.pop("consumerId", UNSET))


        def _parse_destination(data: object) -> AmqpDestinationIn | NatsDestinationIn | None | RelayDestinationIn | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                destination_type_0_type_0 = AmqpDestinationIn.from_dict(data)



                return destination_type_0_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                destination_type_0_type_1 = NatsDestinationIn.from_dict(data)



                return destination_type_0_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                destination_type_0_type_2 = RelayDestinationIn.from_dict(data)



                return destination_type_0_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AmqpDestinationIn | NatsDestinationIn | None | RelayDestinationIn | Unset, data)

        destination = _parse_destination(d.pop("destination", UNSET))


        def _parse_endpoint(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        endpoint = _parse_endpoint(d.pop("endpoint", UNSET))


        def _parse_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)



                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        expires_at = _parse_expires_at(d.pop("expiresAt", UNSET))


        def _parse_filter_(data: object) -> None | SubscriptionCreateFilterType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                filter_type_0 = SubscriptionCreateFilterType0.from_dict(data)



                return filter_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SubscriptionCreateFilterType0 | Unset, data)

        filter_ = _parse_filter_(d.pop("filter", UNSET))


        def _parse_filters(data: object) -> list[FilterExpression] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                filters_type_0 = []
                _filters_type_0 = data
                for componentsschemas_filters_item_data in (_filters_type_0):
                    componentsschemas_filters_item = FilterExpression.from_dict(componentsschemas_filters_item_data)



                    filters_type_0.append(componentsschemas_filters_item)

                return filters_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[FilterExpression] | None | Unset, data)

        filters = _parse_filters(d.pop("filters", UNSET))


        _format_ = d.pop("format", UNSET)
        format_: SubscriptionCreateFormat | Unset
        if isinstance(_format_,  Unset):
            format_ = UNSET
        else:
            format_ = SubscriptionCreateFormat(_format_)




        _old_generation_policy = d.pop("oldGenerationPolicy", UNSET)
        old_generation_policy: SubscriptionCreateOldGenerationPolicy | Unset
        if isinstance(_old_generation_policy,  Unset):
            old_generation_policy = UNSET
        else:
            old_generation_policy = SubscriptionCreateOldGenerationPolicy(_old_generation_policy)




        _ordering = d.pop("ordering", UNSET)
        ordering: SubscriptionCreateOrdering | Unset
        if isinstance(_ordering,  Unset):
            ordering = UNSET
        else:
            ordering = SubscriptionCreateOrdering(_ordering)




        ordering_gap_timeout_s = d.pop("orderingGapTimeoutS", UNSET)

        def _parse_rate_limit(data: object) -> None | RateLimitIn | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                rate_limit_type_0 = RateLimitIn.from_dict(data)



                return rate_limit_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RateLimitIn | Unset, data)

        rate_limit = _parse_rate_limit(d.pop("rateLimit", UNSET))


        def _parse_receipt_key(data: object) -> None | ReceiptKeyIn | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                receipt_key_type_0 = ReceiptKeyIn.from_dict(data)



                return receipt_key_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReceiptKeyIn | Unset, data)

        receipt_key = _parse_receipt_key(d.pop("receiptKey", UNSET))


        def _parse_retry_policy(data: object) -> None | RetryPolicyIn | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                retry_policy_type_0 = RetryPolicyIn.from_dict(data)



                return retry_policy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RetryPolicyIn | Unset, data)

        retry_policy = _parse_retry_policy(d.pop("retryPolicy", UNSET))


        def _parse_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        secret = _parse_secret(d.pop("secret", UNSET))


        _signature_profile = d.pop("signatureProfile", UNSET)
        signature_profile: SubscriptionCreateSignatureProfile | Unset
        if isinstance(_signature_profile,  Unset):
            signature_profile = UNSET
        else:
            signature_profile = SubscriptionCreateSignatureProfile(_signature_profile)




        def _parse_transformation(data: object) -> None | TransformationIn | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                transformation_type_0 = TransformationIn.from_dict(data)



                return transformation_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TransformationIn | Unset, data)

        transformation = _parse_transformation(d.pop("transformation", UNSET))


        subscription_create = cls(
            event_versions=event_versions,
            owner=owner,
            region=region,
            signature_algorithm=signature_algorithm,
            topics=topics,
            auth=auth,
            consumer_id=consumer_id,
            destination=destination,
            endpoint=endpoint,
            expires_at=expires_at,
            filter_=filter_,
            filters=filters,
            format_=format_,
            old_generation_policy=old_generation_policy,
            ordering=ordering,
            ordering_gap_timeout_s=ordering_gap_timeout_s,
            rate_limit=rate_limit,
            receipt_key=receipt_key,
            retry_policy=retry_policy,
            secret=secret,
            signature_profile=signature_profile,
            transformation=transformation,
        )

        return subscription_create

