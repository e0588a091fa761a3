from enum import StrEnum

class RelayRequestType(StrEnum):
    REQUEST = "request"

    def __str__(self) -> str:
        return str(self.value)
