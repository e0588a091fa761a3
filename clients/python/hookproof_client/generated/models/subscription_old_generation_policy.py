from enum import StrEnum

class SubscriptionOldGenerationPolicy(StrEnum):
    DRAIN = "drain"
    QUARANTINE = "quarantine"

    def __str__(self) -> str:
        return str(self.value)
