-- The events channel's payload names the writer when it tagged its transaction
-- (set_config('hookproof.notify', tag, true)), else ''. The dispatcher tags its claims and
-- outcome appends 'dispatch': what they commit makes no other delivery due (a retry is due
-- later, the poll finds it; an ordered successor is woken by its own dispatcher), so the
-- dispatchers do not claim again on each other's commits. Tailers read every payload alike.
-- Still one notification per transaction and tag (pg_notify folds duplicates).
CREATE OR REPLACE FUNCTION hookproof_events_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('hookproof_events', coalesce(current_setting('hookproof.notify', true), ''));
    RETURN NULL;
END;
$$;
