from enum import StrEnum

class SubscriptionCreatedOldGenerationPolicy(StrEnum):
    DRAIN = "drain"
    QUARANTINE = "quarantine"

    def __str__(self) -> str:
        return str(self.value)
