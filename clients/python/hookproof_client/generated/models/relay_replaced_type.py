from enum import StrEnum

class RelayReplacedType(StrEnum):
    REPLACED = "replaced"

    def __str__(self) -> str:
        return str(self.value)
