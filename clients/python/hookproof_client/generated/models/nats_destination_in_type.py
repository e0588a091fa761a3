from enum import StrEnum

class NatsDestinationInType(StrEnum):
    NATS = "nats"

    def __str__(self) -> str:
        return str(self.value)
