from enum import StrEnum

class SubscriptionCreatedSignatureProfile(StrEnum):
    HOOKPROOF_SIG_V1 = "hookproof.sig.v1"
    STANDARD_WEBHOOKS_V1 = "standard-webhooks.v1"

    def __str__(self) -> str:
        return str(self.value)
