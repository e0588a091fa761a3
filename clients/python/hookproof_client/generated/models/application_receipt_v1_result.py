from enum import StrEnum

class ApplicationReceiptV1Result(StrEnum):
    APPLIED = "applied"
    DUPLICATE = "duplicate"
    REJECTED = "rejected"

    def __str__(self) -> str:
        return str(self.value)
