from enum import StrEnum

class WhoamiKind(StrEnum):
    OPERATOR = "operator"
    PORTAL = "portal"
    TENANT = "tenant"

    def __str__(self) -> str:
        return str(self.value)
