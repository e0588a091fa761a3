from enum import StrEnum

class ReadinessStatus(StrEnum):
    READY = "ready"

    def __str__(self) -> str:
        return str(self.value)
