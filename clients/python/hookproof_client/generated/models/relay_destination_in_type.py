from enum import StrEnum

class RelayDestinationInType(StrEnum):
    RELAY = "relay"

    def __str__(self) -> str:
        return str(self.value)
