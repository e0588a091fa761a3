-- One of the live table's triggers, created on the fresh copy under the same name (trigger
-- names are per table): {create} and {definition} are the catalogue's own text before and
-- after "ON <table>" (pg_get_triggerdef).
{create} ON {fresh} {definition}
