from enum import StrEnum

class MtlsAuthInType(StrEnum):
    MTLS = "mtls"

    def __str__(self) -> str:
        return str(self.value)
