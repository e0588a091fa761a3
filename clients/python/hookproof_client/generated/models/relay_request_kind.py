from enum import StrEnum

class RelayRequestKind(StrEnum):
    CHALLENGE = "challenge"
    DELIVERY = "delivery"

    def __str__(self) -> str:
        return str(self.value)
