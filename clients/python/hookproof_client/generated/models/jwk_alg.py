from enum import StrEnum

class JwkAlg(StrEnum):
    EDDSA = "EdDSA"

    def __str__(self) -> str:
        return str(self.value)
