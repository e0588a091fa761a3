-- hookproof listen (issue 36): relay sessions and the exchanges carried through them.
--
-- A relay session is the WebSocket `GET /v1/relay/{subscriptionId}` one worker holds open for
-- `hookproof listen`. With `serve --workers N` the attempt that must go through it may be
-- claimed on another worker, so every exchange goes through these two tables and the
-- `hookproof_relay` NOTIFY channel (engine/relay/hub.py): the claiming worker inserts the
-- exchange and notifies `q:<session>:<exchange>`; the holding worker sends it over its
-- WebSocket and records the relay's report on the row, notifying `r:<exchange>`; the
-- claiming worker takes the row away (DELETE ... RETURNING), so a report arriving after that
-- finds nothing to land on.
--
-- One session per subscription (a second attach replaces the first: `x:<old session>`).
-- `backend_pid` is the holder's LISTEN connection: a session counts as attached only while
-- that backend is alive (a crashed worker's sessions lapse with its connection).
CREATE TABLE IF NOT EXISTS relay_sessions (
    subscription_id text PRIMARY KEY,
    session_id text NOT NULL UNIQUE,
    tenant_id text NOT NULL,
    backend_pid integer NOT NULL,
    attached_at timestamptz NOT NULL DEFAULT now()
);

-- One request through a session: an attempt of a delivery (`kind` 'delivery', keyed by
-- delivery id and attempt: a report is credited to that attempt only) or a challenge
-- ('challenge', delivery_id = the challenge id, attempt 1). `sent_at`: handed to the
-- WebSocket; `reported_at`: the relay's report (status, or an error code) or the session's
-- end (error 'relay_detached'); `response`/`response_type`: a challenge's answer (bounded).
CREATE TABLE IF NOT EXISTS relay_exchanges (
    exchange_id text PRIMARY KEY,
    session_id text NOT NULL,
    subscription_id text NOT NULL,
    delivery_id text NOT NULL,
    attempt integer NOT NULL,
    kind text NOT NULL,
    headers jsonb NOT NULL,
    body bytea NOT NULL,
    sent_at timestamptz,
    reported_at timestamptz,
    status integer,
    error text,
    response bytea,
    response_type text,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (delivery_id, attempt)
);
CREATE INDEX IF NOT EXISTS relay_exchanges_session ON relay_exchanges (session_id)
    WHERE reported_at IS NULL;
