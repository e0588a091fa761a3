from enum import StrEnum

class RolloutAdvanceStage(StrEnum):
    COMPLETE = "COMPLETE"
    CUTOVER = "CUTOVER"
    INTERNAL = "INTERNAL"

    def __str__(self) -> str:
        return str(self.value)
