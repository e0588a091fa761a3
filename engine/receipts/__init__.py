"""Application receipts (``applicationReceipt.v1``): verify, deduplicate, confirm, redeliver.

``POST /v1/receipts`` is unauthenticated at the HTTP layer: the RFC 9421 signature under the
subscription's registered receipt key (profile ``hookproof.receipt.v1``) is the credential.
"""

from .decide import REASONS, KeyVerdict, receipt_key_history, verify_receipt_signature
from .service import ReceiptMetrics, ReceiptOutcome, ReceiptService

__all__ = [
    "REASONS",
    "KeyVerdict",
    "ReceiptMetrics",
    "ReceiptOutcome",
    "ReceiptService",
    "receipt_key_history",
    "verify_receipt_signature",
]
