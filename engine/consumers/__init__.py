"""Consumers: the tenant's own customers, each with its own subscriptions (DESIGN section 11)."""

from .decide import Create, Disable, Update, decide
from .service import CONSUMER_ID, ConsumerService, check_consumer_id

__all__ = [
    "CONSUMER_ID",
    "ConsumerService",
    "Create",
    "Disable",
    "Update",
    "check_consumer_id",
    "decide",
]
