from enum import StrEnum

class GetV1AttemptStatsInterval(StrEnum):
    DAY = "day"
    HOUR = "hour"

    def __str__(self) -> str:
        return str(self.value)
