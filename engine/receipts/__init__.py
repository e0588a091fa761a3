"""Application receipts (``applicationReceipt.v1``): verify, deduplicate, confirm, redeliver.

``POST /v1/receipts`` is unauthenticated at the HTTP layer: the RFC 9421 signature under the
subscription's registered receipt key (profile ``hookproof.receipt.v1``) is the credential.
The composition root builds the service and its redeliverer (``construct_receipts``).

Configuration (environment):

- ``HOOKPROOF_RECEIPTS_URL``: the engine's public receipts URL, exactly as subscribers sign it
  as ``@target-uri`` (e.g. ``https://hookproof.example.com/v1/receipts``); else
  ``HOOKPROOF_PUBLIC_URL`` + ``/v1/receipts``; else each request's own scheme, Host and path
  (fine on a direct listener, wrong behind a TLS-terminating proxy: configure it there).
- ``HOOKPROOF_RECEIPT_TIMEOUT`` (seconds, default 900; 0: off) and
  ``HOOKPROOF_RECEIPT_REDELIVERIES`` (default 3): see :mod:`.redeliver`.
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
