from enum import StrEnum

class RecoverInStatesType0Item(StrEnum):
    DEAD_LETTER = "DEAD_LETTER"
    QUARANTINED = "QUARANTINED"

    def __str__(self) -> str:
        return str(self.value)
