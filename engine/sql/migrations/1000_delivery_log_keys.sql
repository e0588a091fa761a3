-- The delivery log's keys in a table of their own, written once per delivery (issues 37, 40;
-- bench/HISTORY.md "Session 11: WAL and disk per delivery").
--
-- A ledger row is written three times (planned, admitted, outcome) and none of its updates is
-- HOT (each changes `state`, which the queue's partial indexes name), so each version writes
-- an entry into every index on `deliveries`. The four delivery-log indexes of 0960/0981 took
-- ~2.1 KiB of WAL per delivery that way, though the keys they order by never change after the
-- planned row: tenant, created_at, id, subscription, topic, event. Those keys now live in
-- `delivery_log`, insert-only, one row per ledger row, with the log's orders as its indexes:
--   no filter or a time range       -> delivery_log_pkey (tenant, created_at, id)
--   subscriptionId (an endpoint)    -> delivery_log_subscription
--   eventType (topic)               -> delivery_log_topic
--   a rare state (failures, dead    -> deliveries_log_rare_state (partial: only the row
--   letters, skipped, quarantined,     versions in those states carry an entry)
--   application-confirmed)
--   another state (ENDPOINT_ACCEPTED -> the time order, the state checked on the ledger row
--   is most rows; PLANNED and          (the planner may start from the queue's partial
--   DISPATCHING the newest)            indexes when it expects few rows in the state)
--   eventId                         -> delivery_log_event (tenant, event id): also the
--                                      deliveries of one tenant's event (idempotent re-posts,
--                                      GET /v1/events/{eventId}), once deliveries_tenant_event
--   deliveryId                      -> the ledger's primary key
--
-- Who writes it: the statement that inserts the ledger row, through the statement trigger
-- below (whatever inserts ledger rows: the projector's upsert, ingest's planned rows, the
-- inline writes of an append, a rebuild's COPY into its fresh table, which copies the live
-- table's triggers first). Only rows actually inserted are in the transition table (an upsert
-- that updates writes no key). One INSERT per statement, whatever its rows: no per-row call. The archive deletes a ledger row's keys with it
-- (archive_remove.sql). A key without its ledger row is never shown: every log read joins the
-- ledger.
CREATE TABLE IF NOT EXISTS delivery_log (
    tenant_id text NOT NULL,
    created_at timestamptz NOT NULL,
    delivery_id text NOT NULL,
    subscription_id text NOT NULL,
    topic text NOT NULL,
    event_id text NOT NULL,
    PRIMARY KEY (tenant_id, created_at, delivery_id)
);

CREATE OR REPLACE FUNCTION hookproof_delivery_log_keys() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    -- ON CONFLICT: only a rebuild's COPY meets keys already there. (Not a NOT EXISTS probe:
    -- the function's cached plan, made while the table was empty, may scan it per row.)
    INSERT INTO delivery_log (tenant_id, created_at, delivery_id, subscription_id, topic, event_id)
    SELECT n.tenant_id, n.created_at, n.delivery_id, n.subscription_id, n.topic, n.event_id
    FROM inserted_ledger_rows AS n
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END;
$$;
DROP TRIGGER IF EXISTS deliveries_log_keys ON deliveries;
CREATE TRIGGER deliveries_log_keys AFTER INSERT ON deliveries
    REFERENCING NEW TABLE AS inserted_ledger_rows
    FOR EACH STATEMENT EXECUTE FUNCTION hookproof_delivery_log_keys();

-- The keys of the ledger rows already present.
INSERT INTO delivery_log (tenant_id, created_at, delivery_id, subscription_id, topic, event_id)
SELECT tenant_id, created_at, delivery_id, subscription_id, topic, event_id FROM deliveries
ON CONFLICT DO NOTHING;

CREATE INDEX IF NOT EXISTS delivery_log_subscription
    ON delivery_log (subscription_id, created_at, delivery_id);
CREATE INDEX IF NOT EXISTS delivery_log_topic
    ON delivery_log (tenant_id, topic, created_at, delivery_id);
CREATE INDEX IF NOT EXISTS delivery_log_event ON delivery_log (tenant_id, event_id);

-- The state filter for the states few rows are in: as 0981's deliveries_log_state (it carries
-- the other filtered columns, so a combination no row matches is answered from the index
-- alone), but only for the row versions in those states (projections/ledger.py LOG_INDEXED).
-- The other states walk the time order and check the state on the ledger row
-- (engine/delivery/log.py).
-- APPLICATION_CONFIRMED is here: a tenant without receipts has no such row, and its filter
-- would otherwise walk the whole log; a confirmed row is a fourth version of its ledger row.
CREATE INDEX IF NOT EXISTS deliveries_log_rare_state
    ON deliveries (tenant_id, state, created_at, delivery_id)
    INCLUDE (subscription_id, topic, accepted_at, application)
    WHERE state IN ('RETRYABLE', 'UNKNOWN_TRANSPORT', 'DEAD_LETTER', 'QUARANTINED', 'SKIPPED',
                    'APPLICATION_CONFIRMED');

DROP INDEX IF EXISTS deliveries_log;
DROP INDEX IF EXISTS deliveries_log_topic;
DROP INDEX IF EXISTS deliveries_log_state;
-- deliveries_log_subscription also served recovery's reads by subscription
-- (recover_candidates.sql): they walk delivery_log_subscription now.
DROP INDEX IF EXISTS deliveries_log_subscription;
-- (tenant_id) WHERE DEAD_LETTER: deliveries_dead_page and deliveries_log_rare_state both lead
-- with tenant_id and hold every dead letter.
DROP INDEX IF EXISTS deliveries_dead;
-- (tenant_id, event_id): delivery_log_event does its work (event_deliveries.sql,
-- deliveries_of_events.sql, deliveries_log_by_event.sql read through it).
DROP INDEX IF EXISTS deliveries_tenant_event;
ANALYZE deliveries;
ANALYZE delivery_log;
