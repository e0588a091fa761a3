from enum import StrEnum

class DestinationViewType(StrEnum):
    AMQP = "amqp"
    NATS = "nats"
    RELAY = "relay"

    def __str__(self) -> str:
        return str(self.value)
