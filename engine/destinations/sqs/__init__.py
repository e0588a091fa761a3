"""Amazon SQS as a destination kind (issue 52 item 1): SendMessage, signed with SigV4, sent
over the engine's vetted connection; the queue's ``MessageId`` and its MD5s of what it stored
are the evidence (:mod:`.message` pure, :mod:`.adapter` the I/O, :mod:`.kind` the entry)."""
