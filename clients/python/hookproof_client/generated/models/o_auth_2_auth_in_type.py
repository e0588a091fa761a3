from enum import StrEnum

class OAuth2AuthInType(StrEnum):
    OAUTH2 = "oauth2"

    def __str__(self) -> str:
        return str(self.value)
