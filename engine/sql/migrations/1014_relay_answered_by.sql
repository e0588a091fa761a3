-- hookproof listen --answer-challenge (issue 48): the CLI may answer a relay subscription's
-- challenge itself, for a local receiver that has no challenge support. Its report says so
-- (`answeredBy: "cli"`), and the row keeps it, so the challenge's evidence names the CLI as the
-- one that answered (peer `relay:<session>/cli`), never the receiver.
ALTER TABLE relay_exchanges ADD COLUMN IF NOT EXISTS answered_by text;
