from enum import StrEnum

class RelayReportType(StrEnum):
    REPORT = "report"

    def __str__(self) -> str:
        return str(self.value)
