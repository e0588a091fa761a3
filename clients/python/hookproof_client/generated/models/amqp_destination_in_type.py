from enum import StrEnum

class AmqpDestinationInType(StrEnum):
    AMQP = "amqp"

    def __str__(self) -> str:
        return str(self.value)
