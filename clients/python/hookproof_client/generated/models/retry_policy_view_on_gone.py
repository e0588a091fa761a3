from enum import StrEnum

class RetryPolicyViewOnGone(StrEnum):
    DEAD_LETTER = "dead_letter"
    SUSPEND = "suspend"

    def __str__(self) -> str:
        return str(self.value)
