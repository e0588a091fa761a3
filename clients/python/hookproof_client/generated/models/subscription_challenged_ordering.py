from enum import StrEnum

class SubscriptionChallengedOrdering(StrEnum):
    AGGREGATE = "aggregate"
    NONE = "none"

    def __str__(self) -> str:
        return str(self.value)
