from enum import StrEnum

class SubscriptionCreateOrdering(StrEnum):
    AGGREGATE = "aggregate"
    NONE = "none"

    def __str__(self) -> str:
        return str(self.value)
