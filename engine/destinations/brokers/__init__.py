"""What the broker kinds (:mod:`..amqp`, :mod:`..nats`) share (DESIGN.md section 13): a
subscription's ``destination`` checked (:mod:`.spec`), the signed broker message
(:mod:`.message`), the evidence (:mod:`.evidence`), vetting and the guarded connect
(:mod:`.net`, :mod:`.guarded`, :mod:`.bounds`), pools (:mod:`.pool`), the sealed credentials
(:mod:`.credentials`) and the port adapter over both publishers (:mod:`.adapter`)."""
