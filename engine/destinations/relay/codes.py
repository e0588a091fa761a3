"""The relay destination's failure codes (beside the egress ones; pure).

=========================  ===============================================  ================
code                       when                                             ledger
=========================  ===============================================  ================
relay_not_attached         no ``hookproof listen`` session is attached      RETRYABLE
relay_detached             the session ended before its report came         UNKNOWN_TRANSPORT
                           (NOT_SENT when it was never handed over)          (or RETRYABLE)
relay_report_timeout       no report within the bound                       UNKNOWN_TRANSPORT
relay_local_unreachable    the CLI could not connect to the local receiver  RETRYABLE
relay_local_failed         the local request failed after it was sent       UNKNOWN_TRANSPORT
relay_report_invalid       the relay reported no usable status              UNKNOWN_TRANSPORT
=========================  ===============================================  ================
"""

from __future__ import annotations

import enum
from typing import Final

__all__ = ["LOCAL_ERRORS", "RELAY_REPORTED", "RelayCode"]


class RelayCode(enum.StrEnum):
    NOT_ATTACHED = "relay_not_attached"
    DETACHED = "relay_detached"
    REPORT_TIMEOUT = "relay_report_timeout"
    LOCAL_UNREACHABLE = "relay_local_unreachable"
    LOCAL_FAILED = "relay_local_failed"
    REPORT_INVALID = "relay_report_invalid"


#: what the CLI may report instead of a status: could it have reached the receiver?
#: (False: nothing was sent to it)
LOCAL_ERRORS: Final = {
    RelayCode.LOCAL_UNREACHABLE.value: False,
    RelayCode.LOCAL_FAILED.value: True,
}

#: ``evidence.endpoint`` of a delivery whose 2xx the relay reported (the engine did not see
#: that answer itself: never ENDPOINT_ACCEPTED)
RELAY_REPORTED: Final = "RELAY_REPORTED"
