"""The ``amqp`` kind: RabbitMQ (AMQP 0-9-1) with publisher confirms (DESIGN.md 13)."""
