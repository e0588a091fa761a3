from enum import StrEnum

class SubscriptionApplicationEvidence(StrEnum):
    RECEIPTS = "RECEIPTS"
    UNOBSERVABLE = "UNOBSERVABLE"

    def __str__(self) -> str:
        return str(self.value)
