-- Whether this role may vacuum the ledger table: its owner (or a role it inherits from), the
-- database's owner, or a superuser (PostgreSQL 15's rule). Any other role's VACUUM only warns
-- and skips the table, so the engine's upkeep (engine/delivery/upkeep.py) stops and says so.
SELECT pg_has_role(current_user, c.relowner, 'USAGE')
       OR pg_has_role(current_user, d.datdba, 'USAGE')
       OR coalesce((SELECT rolsuper FROM pg_roles WHERE rolname = current_user), false)
       AS can_vacuum
FROM pg_class c, pg_database d
WHERE c.oid = 'deliveries'::regclass AND d.datname = current_database()
