from enum import StrEnum

class AuthViewType(StrEnum):
    HEADER = "header"
    MTLS = "mtls"
    OAUTH2 = "oauth2"

    def __str__(self) -> str:
        return str(self.value)
