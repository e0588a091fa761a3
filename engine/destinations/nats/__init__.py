"""The ``nats`` kind: NATS JetStream, the stream's acknowledgement as evidence (DESIGN.md 13)."""
