from enum import StrEnum

class PortalSessionCreateCapabilitiesItem(StrEnum):
    MANAGE = "manage"
    READ = "read"
    REPLAY = "replay"

    def __str__(self) -> str:
        return str(self.value)
