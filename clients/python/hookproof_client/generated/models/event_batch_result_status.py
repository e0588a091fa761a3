from enum import IntEnum

class EventBatchResultStatus(IntEnum):
    VALUE_202 = 202
    VALUE_400 = 400
    VALUE_409 = 409

    def __str__(self) -> str:
        return str(self.value)
