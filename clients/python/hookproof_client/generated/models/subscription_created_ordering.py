from enum import StrEnum

class SubscriptionCreatedOrdering(StrEnum):
    AGGREGATE = "aggregate"
    NONE = "none"

    def __str__(self) -> str:
        return str(self.value)
