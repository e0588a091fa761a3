from enum import StrEnum

class ReceiptConfirmedReceipt(StrEnum):
    ACCEPTED = "accepted"
    DUPLICATE = "duplicate"

    def __str__(self) -> str:
        return str(self.value)
