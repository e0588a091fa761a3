from enum import StrEnum

class TransformationViewLanguage(StrEnum):
    JAVASCRIPT = "javascript"

    def __str__(self) -> str:
        return str(self.value)
