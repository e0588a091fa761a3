from enum import StrEnum

class RelayReportAnsweredByType0(StrEnum):
    CLI = "cli"

    def __str__(self) -> str:
        return str(self.value)
