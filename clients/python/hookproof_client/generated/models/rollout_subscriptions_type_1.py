from enum import StrEnum

class RolloutSubscriptionsType1(StrEnum):
    ALL = "all"

    def __str__(self) -> str:
        return str(self.value)
