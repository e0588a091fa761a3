from enum import StrEnum

class SubscriptionPatchFormat(StrEnum):
    CLOUDEVENTS_BINARY = "cloudevents-binary"
    CLOUDEVENTS_STRUCTURED = "cloudevents-structured"
    HOOKPROOF = "hookproof"

    def __str__(self) -> str:
        return str(self.value)
