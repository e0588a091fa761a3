from enum import StrEnum

class SubscriptionCreateOldGenerationPolicy(StrEnum):
    DRAIN = "drain"
    QUARANTINE = "quarantine"

    def __str__(self) -> str:
        return str(self.value)
