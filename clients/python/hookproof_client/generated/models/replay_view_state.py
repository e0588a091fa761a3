from enum import StrEnum

class ReplayViewState(StrEnum):
    CANCELLED = "CANCELLED"
    DONE = "DONE"
    RUNNING = "RUNNING"

    def __str__(self) -> str:
        return str(self.value)
