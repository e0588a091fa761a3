from enum import StrEnum

class GetV1DeliveriesEvidence(StrEnum):
    APPLICATION_CONFIRMED = "APPLICATION_CONFIRMED"
    ENDPOINT_ACCEPTED = "ENDPOINT_ACCEPTED"
    NONE = "NONE"

    def __str__(self) -> str:
        return str(self.value)
