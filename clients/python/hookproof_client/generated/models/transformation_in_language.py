from enum import StrEnum

class TransformationInLanguage(StrEnum):
    JAVASCRIPT = "javascript"

    def __str__(self) -> str:
        return str(self.value)
