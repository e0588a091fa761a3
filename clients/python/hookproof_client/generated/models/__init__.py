""" Contains all the data models used in inputs/outputs """

from .amqp_answer import AmqpAnswer
from .amqp_destination_in import AmqpDestinationIn
from .amqp_destination_in_type import AmqpDestinationInType
from .application_receipt_v1 import ApplicationReceiptV1
from .application_receipt_v1_result import ApplicationReceiptV1Result
from .application_receipt_view import ApplicationReceiptView
from .attempt_bucket import AttemptBucket
from .attempt_bucket_counts import AttemptBucketCounts
from .attempt_request_view import AttemptRequestView
from .attempt_response_view import AttemptResponseView
from .attempt_stats import AttemptStats
from .attempt_stats_batch import AttemptStatsBatch
from .attempt_stats_interval import AttemptStatsInterval
from .auth_view import AuthView
from .auth_view_type import AuthViewType
from .broker_answer import BrokerAnswer
from .challenge_answered import ChallengeAnswered
from .challenge_outcome import ChallengeOutcome
from .cloud_event_in import CloudEventIn
from .consumer import Consumer
from .consumer_create import ConsumerCreate
from .consumer_create_metadata import ConsumerCreateMetadata
from .consumer_disable import ConsumerDisable
from .consumer_metadata import ConsumerMetadata
from .consumer_page import ConsumerPage
from .consumer_patch import ConsumerPatch
from .consumer_patch_metadata import ConsumerPatchMetadata
from .consumer_state import ConsumerState
from .credentials_in import CredentialsIn
from .dead_letter import DeadLetter
from .dead_letter_info import DeadLetterInfo
from .dead_letter_page import DeadLetterPage
from .delivery import Delivery
from .delivery_attempt import DeliveryAttempt
from .delivery_evidence import DeliveryEvidence
from .delivery_filters import DeliveryFilters
from .delivery_log_item import DeliveryLogItem
from .delivery_log_page import DeliveryLogPage
from .delivery_ref import DeliveryRef
from .delivery_search_item import DeliverySearchItem
from .delivery_search_page import DeliverySearchPage
from .destination_view import DestinationView
from .destination_view_type import DestinationViewType
from .engine_key_rotated import EngineKeyRotated
from .engine_key_rotated_reasons import EngineKeyRotatedReasons
from .event_accepted import EventAccepted
from .event_batch_in import EventBatchIn
from .event_batch_result import EventBatchResult
from .event_batch_result_status import EventBatchResultStatus
from .event_batch_results import EventBatchResults
from .event_delivery import EventDelivery
from .event_in import EventIn
from .event_in_extensions_type_0 import EventInExtensionsType0
from .event_search_item import EventSearchItem
from .event_search_page import EventSearchPage
from .event_type import EventType
from .event_type_in import EventTypeIn
from .event_type_in_versions import EventTypeInVersions
from .event_type_page import EventTypePage
from .event_type_version_in import EventTypeVersionIn
from .event_type_version_in_schema_type_0 import EventTypeVersionInSchemaType0
from .event_type_versions import EventTypeVersions
from .event_type_versions_additional_property import EventTypeVersionsAdditionalProperty
from .event_type_versions_additional_property_schema_type_0 import EventTypeVersionsAdditionalPropertySchemaType0
from .event_view import EventView
from .filter_cloud_event import FilterCloudEvent
from .filter_expression import FilterExpression
from .filter_expression_exact import FilterExpressionExact
from .filter_expression_match import FilterExpressionMatch
from .filter_expression_prefix import FilterExpressionPrefix
from .filter_expression_suffix import FilterExpressionSuffix
from .filter_outcome import FilterOutcome
from .filter_outcome_error import FilterOutcomeError
from .filters_evaluate import FiltersEvaluate
from .filters_evaluated import FiltersEvaluated
from .gate import Gate
from .gate_detail import GateDetail
from .gate_report import GateReport
from .get_openapi_json_response_200 import GetOpenapiJsonResponse200
from .get_v1_attempt_stats_interval import GetV1AttemptStatsInterval
from .get_v1_attempt_stats_window import GetV1AttemptStatsWindow
from .get_v1_deliveries_evidence import GetV1DeliveriesEvidence
from .get_v1_deliveries_state import GetV1DeliveriesState
from .get_v1_event_types_openapi_json_response_200 import GetV1EventTypesOpenapiJsonResponse200
from .header_auth_in import HeaderAuthIn
from .header_auth_in_type import HeaderAuthInType
from .health import Health
from .health_status import HealthStatus
from .history_event import HistoryEvent
from .history_event_data import HistoryEventData
from .history_page import HistoryPage
from .jet_stream_answer import JetStreamAnswer
from .json_pointer_error import JsonPointerError
from .jwk import Jwk
from .jwk_alg import JwkAlg
from .jwk_crv import JwkCrv
from .jwk_kty import JwkKty
from .jwk_use import JwkUse
from .jwks import Jwks
from .latency_percentiles import LatencyPercentiles
from .mtls_auth_in import MtlsAuthIn
from .mtls_auth_in_type import MtlsAuthInType
from .nats_destination_in import NatsDestinationIn
from .nats_destination_in_type import NatsDestinationInType
from .o_auth_2_auth_in import OAuth2AuthIn
from .o_auth_2_auth_in_type import OAuth2AuthInType
from .ordering_gap import OrderingGap
from .ordering_info import OrderingInfo
from .pending_challenge import PendingChallenge
from .portal_branding import PortalBranding
from .portal_branding_in import PortalBrandingIn
from .portal_session_create import PortalSessionCreate
from .portal_session_create_capabilities_item import PortalSessionCreateCapabilitiesItem
from .portal_session_item import PortalSessionItem
from .portal_session_item_capabilities_item import PortalSessionItemCapabilitiesItem
from .portal_session_page import PortalSessionPage
from .portal_session_started import PortalSessionStarted
from .portal_session_started_capabilities_item import PortalSessionStartedCapabilitiesItem
from .portal_sessions_ended import PortalSessionsEnded
from .post_v1_challenges_challenge_id_response_hookproof_challenge_response_v1 import PostV1ChallengesChallengeIdResponseHookproofChallengeResponseV1
from .problem import Problem
from .rate_limit_in import RateLimitIn
from .rate_limit_view import RateLimitView
from .readiness import Readiness
from .readiness_status import ReadinessStatus
from .receipt_confirmed import ReceiptConfirmed
from .receipt_confirmed_receipt import ReceiptConfirmedReceipt
from .receipt_conflict_view import ReceiptConflictView
from .receipt_key_in import ReceiptKeyIn
from .receipt_key_in_public_key_jwk import ReceiptKeyInPublicKeyJwk
from .receipt_key_view import ReceiptKeyView
from .recover_in import RecoverIn
from .recover_in_states_type_0_item import RecoverInStatesType0Item
from .recovered import Recovered
from .relay_attached import RelayAttached
from .relay_attached_type import RelayAttachedType
from .relay_destination_in import RelayDestinationIn
from .relay_destination_in_type import RelayDestinationInType
from .relay_replaced import RelayReplaced
from .relay_replaced_type import RelayReplacedType
from .relay_report import RelayReport
from .relay_report_answered_by_type_0 import RelayReportAnsweredByType0
from .relay_report_type import RelayReportType
from .relay_request import RelayRequest
from .relay_request_headers import RelayRequestHeaders
from .relay_request_kind import RelayRequestKind
from .relay_request_type import RelayRequestType
from .replay_counts import ReplayCounts
from .replay_dry_run import ReplayDryRun
from .replay_in import ReplayIn
from .replay_view import ReplayView
from .replay_view_state import ReplayViewState
from .request_body import RequestBody
from .retry_policy_in import RetryPolicyIn
from .retry_policy_in_on_gone import RetryPolicyInOnGone
from .retry_policy_view import RetryPolicyView
from .retry_policy_view_on_gone import RetryPolicyViewOnGone
from .rollout import Rollout
from .rollout_advance import RolloutAdvance
from .rollout_advance_stage import RolloutAdvanceStage
from .rollout_create import RolloutCreate
from .rollout_create_subscriptions_type_1 import RolloutCreateSubscriptionsType1
from .rollout_cutover_figures import RolloutCutoverFigures
from .rollout_internal_figures import RolloutInternalFigures
from .rollout_page import RolloutPage
from .rollout_shadow_figures import RolloutShadowFigures
from .rollout_subscriptions_type_1 import RolloutSubscriptionsType1
from .rollout_switch import RolloutSwitch
from .rollout_target import RolloutTarget
from .rollout_target_out import RolloutTargetOut
from .rollout_target_signature_profile_type_0 import RolloutTargetSignatureProfileType0
from .search_in import SearchIn
from .secret_rotated import SecretRotated
from .subscription import Subscription
from .subscription_application_evidence import SubscriptionApplicationEvidence
from .subscription_challenged import SubscriptionChallenged
from .subscription_challenged_application_evidence import SubscriptionChallengedApplicationEvidence
from .subscription_challenged_format import SubscriptionChallengedFormat
from .subscription_challenged_old_generation_policy import SubscriptionChallengedOldGenerationPolicy
from .subscription_challenged_ordering import SubscriptionChallengedOrdering
from .subscription_challenged_signature_algorithm import SubscriptionChallengedSignatureAlgorithm
from .subscription_challenged_signature_profile import SubscriptionChallengedSignatureProfile
from .subscription_create import SubscriptionCreate
from .subscription_create_filter_type_0 import SubscriptionCreateFilterType0
from .subscription_create_format import SubscriptionCreateFormat
from .subscription_create_old_generation_policy import SubscriptionCreateOldGenerationPolicy
from .subscription_create_ordering import SubscriptionCreateOrdering
from .subscription_create_signature_algorithm import SubscriptionCreateSignatureAlgorithm
from .subscription_create_signature_profile import SubscriptionCreateSignatureProfile
from .subscription_created import SubscriptionCreated
from .subscription_created_application_evidence import SubscriptionCreatedApplicationEvidence
from .subscription_created_format import SubscriptionCreatedFormat
from .subscription_created_old_generation_policy import SubscriptionCreatedOldGenerationPolicy
from .subscription_created_ordering import SubscriptionCreatedOrdering
from .subscription_created_signature_algorithm import SubscriptionCreatedSignatureAlgorithm
from .subscription_created_signature_profile import SubscriptionCreatedSignatureProfile
from .subscription_format import SubscriptionFormat
from .subscription_old_generation_policy import SubscriptionOldGenerationPolicy
from .subscription_ordering import SubscriptionOrdering
from .subscription_page import SubscriptionPage
from .subscription_patch import SubscriptionPatch
from .subscription_patch_filter_type_0 import SubscriptionPatchFilterType0
from .subscription_patch_format import SubscriptionPatchFormat
from .subscription_patch_old_generation_policy import SubscriptionPatchOldGenerationPolicy
from .subscription_patch_ordering import SubscriptionPatchOrdering
from .subscription_signature_algorithm import SubscriptionSignatureAlgorithm
from .subscription_signature_profile import SubscriptionSignatureProfile
from .subscription_transition import SubscriptionTransition
from .tenant_create import TenantCreate
from .tenant_created import TenantCreated
from .test_event_in import TestEventIn
from .test_event_sent import TestEventSent
from .timeline import Timeline
from .timeline_entry import TimelineEntry
from .timeline_state_type_0 import TimelineStateType0
from .transformation_in import TransformationIn
from .transformation_in_language import TransformationInLanguage
from .transformation_view import TransformationView
from .transformation_view_language import TransformationViewLanguage
from .unplanned_reason import UnplannedReason
from .whoami import Whoami
from .whoami_capabilities_item import WhoamiCapabilitiesItem
from .whoami_kind import WhoamiKind

__all__ = (
    "AmqpAnswer",
    "AmqpDestinationIn",
    "AmqpDestinationInType",
    "ApplicationReceiptV1",
    "ApplicationReceiptV1Result",
    "ApplicationReceiptView",
    "AttemptBucket",
    "AttemptBucketCounts",
    "AttemptRequestView",
    "AttemptResponseView",
    "AttemptStats",
    "AttemptStatsBatch",
    "AttemptStatsInterval",
    "AuthView",
    "AuthViewType",
    "BrokerAnswer",
    "ChallengeAnswered",
    "ChallengeOutcome",
    "CloudEventIn",
    "Consumer",
    "ConsumerCreate",
    "ConsumerCreateMetadata",
    "ConsumerDisable",
    "ConsumerMetadata",
    "ConsumerPage",
    "ConsumerPatch",
    "ConsumerPatchMetadata",
    "ConsumerState",
    "CredentialsIn",
    "DeadLetter",
    "DeadLetterInfo",
    "DeadLetterPage",
    "Delivery",
    "DeliveryAttempt",
    "DeliveryEvidence",
    "DeliveryFilters",
    "DeliveryLogItem",
    "DeliveryLogPage",
    "DeliveryRef",
    "DeliverySearchItem",
    "DeliverySearchPage",
    "DestinationView",
    "DestinationViewType",
    "EngineKeyRotated",
    "EngineKeyRotatedReasons",
    "EventAccepted",
    "EventBatchIn",
    "EventBatchResult",
    "EventBatchResults",
    "EventBatchResultStatus",
    "EventDelivery",
    "EventIn",
    "EventInExtensionsType0",
    "EventSearchItem",
    "EventSearchPage",
    "EventType",
    "EventTypeIn",
    "EventTypeInVersions",
    "EventTypePage",
    "EventTypeVersionIn",
    "EventTypeVersionInSchemaType0",
    "EventTypeVersions",
    "EventTypeVersionsAdditionalProperty",
    "EventTypeVersionsAdditionalPropertySchemaType0",
    "EventView",
    "FilterCloudEvent",
    "FilterExpression",
    "FilterExpressionExact",
    "FilterExpressionMatch",
    "FilterExpressionPrefix",
    "FilterExpressionSuffix",
    "FilterOutcome",
    "FilterOutcomeError",
    "FiltersEvaluate",
    "FiltersEvaluated",
    "Gate",
    "GateDetail",
    "GateReport",
    "GetOpenapiJsonResponse200",
    "GetV1AttemptStatsInterval",
    "GetV1AttemptStatsWindow",
    "GetV1DeliveriesEvidence",
    "GetV1DeliveriesState",
    "GetV1EventTypesOpenapiJsonResponse200",
    "HeaderAuthIn",
    "HeaderAuthInType",
    "Health",
    "HealthStatus",
    "HistoryEvent",
    "HistoryEventData",
    "HistoryPage",
    "JetStreamAnswer",
    "JsonPointerError",
    "Jwk",
    "JwkAlg",
    "JwkCrv",
    "JwkKty",
    "Jwks",
    "JwkUse",
    "LatencyPercentiles",
    "MtlsAuthIn",
    "MtlsAuthInType",
    "NatsDestinationIn",
    "NatsDestinationInType",
    "OAuth2AuthIn",
    "OAuth2AuthInType",
    "OrderingGap",
    "OrderingInfo",
    "PendingChallenge",
    "PortalBranding",
    "PortalBrandingIn",
    "PortalSessionCreate",
    "PortalSessionCreateCapabilitiesItem",
    "PortalSessionItem",
    "PortalSessionItemCapabilitiesItem",
    "PortalSessionPage",
    "PortalSessionsEnded",
    "PortalSessionStarted",
    "PortalSessionStartedCapabilitiesItem",
    "PostV1ChallengesChallengeIdResponseHookproofChallengeResponseV1",
    "Problem",
    "RateLimitIn",
    "RateLimitView",
    "Readiness",
    "ReadinessStatus",
    "ReceiptConfirmed",
    "ReceiptConfirmedReceipt",
    "ReceiptConflictView",
    "ReceiptKeyIn",
    "ReceiptKeyInPublicKeyJwk",
    "ReceiptKeyView",
    "Recovered",
    "RecoverIn",
    "RecoverInStatesType0Item",
    "RelayAttached",
    "RelayAttachedType",
    "RelayDestinationIn",
    "RelayDestinationInType",
    "RelayReplaced",
    "RelayReplacedType",
    "RelayReport",
    "RelayReportAnsweredByType0",
    "RelayReportType",
    "RelayRequest",
    "RelayRequestHeaders",
    "RelayRequestKind",
    "RelayRequestType",
    "ReplayCounts",
    "ReplayDryRun",
    "ReplayIn",
    "ReplayView",
    "ReplayViewState",
    "RequestBody",
    "RetryPolicyIn",
    "RetryPolicyInOnGone",
    "RetryPolicyView",
    "RetryPolicyViewOnGone",
    "Rollout",
    "RolloutAdvance",
    "RolloutAdvanceStage",
    "RolloutCreate",
    "RolloutCreateSubscriptionsType1",
    "RolloutCutoverFigures",
    "RolloutInternalFigures",
    "RolloutPage",
    "RolloutShadowFigures",
    "RolloutSubscriptionsType1",
    "RolloutSwitch",
    "RolloutTarget",
    "RolloutTargetOut",
    "RolloutTargetSignatureProfileType0",
    "SearchIn",
    "SecretRotated",
    "Subscription",
    "SubscriptionApplicationEvidence",
    "SubscriptionChallenged",
    "SubscriptionChallengedApplicationEvidence",
    "SubscriptionChallengedFormat",
    "SubscriptionChallengedOldGenerationPolicy",
    "SubscriptionChallengedOrdering",
    "SubscriptionChallengedSignatureAlgorithm",
    "SubscriptionChallengedSignatureProfile",
    "SubscriptionCreate",
    "SubscriptionCreated",
    "SubscriptionCreatedApplicationEvidence",
    "SubscriptionCreatedFormat",
    "SubscriptionCreatedOldGenerationPolicy",
    "SubscriptionCreatedOrdering",
    "SubscriptionCreatedSignatureAlgorithm",
    "SubscriptionCreatedSignatureProfile",
    "SubscriptionCreateFilterType0",
    "SubscriptionCreateFormat",
    "SubscriptionCreateOldGenerationPolicy",
    "SubscriptionCreateOrdering",
    "SubscriptionCreateSignatureAlgorithm",
    "SubscriptionCreateSignatureProfile",
    "SubscriptionFormat",
    "SubscriptionOldGenerationPolicy",
    "SubscriptionOrdering",
    "SubscriptionPage",
    "SubscriptionPatch",
    "SubscriptionPatchFilterType0",
    "SubscriptionPatchFormat",
    "SubscriptionPatchOldGenerationPolicy",
    "SubscriptionPatchOrdering",
    "SubscriptionSignatureAlgorithm",
    "SubscriptionSignatureProfile",
    "SubscriptionTransition",
    "TenantCreate",
    "TenantCreated",
    "TestEventIn",
    "TestEventSent",
    "Timeline",
    "TimelineEntry",
    "TimelineStateType0",
    "TransformationIn",
    "TransformationInLanguage",
    "TransformationView",
    "TransformationViewLanguage",
    "UnplannedReason",
    "Whoami",
    "WhoamiCapabilitiesItem",
    "WhoamiKind",
)
