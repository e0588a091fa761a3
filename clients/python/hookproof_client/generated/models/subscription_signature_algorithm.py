from enum import StrEnum

class SubscriptionSignatureAlgorithm(StrEnum):
    ED25519 = "ed25519"
    HMAC_SHA256 = "hmac-sha256"

    def __str__(self) -> str:
        return str(self.value)
