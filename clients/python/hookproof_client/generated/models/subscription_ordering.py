from enum import StrEnum

class SubscriptionOrdering(StrEnum):
    AGGREGATE = "aggregate"
    NONE = "none"

    def __str__(self) -> str:
        return str(self.value)
