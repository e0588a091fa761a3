from enum import StrEnum

class RelayAttachedType(StrEnum):
    ATTACHED = "attached"

    def __str__(self) -> str:
        return str(self.value)
