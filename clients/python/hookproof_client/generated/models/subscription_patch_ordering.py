from enum import StrEnum

class SubscriptionPatchOrdering(StrEnum):
    AGGREGATE = "aggregate"
    NONE = "none"

    def __str__(self) -> str:
        return str(self.value)
