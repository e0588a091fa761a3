from enum import StrEnum

class GetV1AttemptStatsWindow(StrEnum):
    VALUE_0 = "24h"
    VALUE_1 = "7d"

    def __str__(self) -> str:
        return str(self.value)
