from enum import StrEnum

class HeaderAuthInType(StrEnum):
    HEADER = "header"

    def __str__(self) -> str:
        return str(self.value)
