-- Notices one node sends for them all (the owner told that a budget stopped a conversation): the
-- first node to insert a notice's key sends it; the others find the key there and do not.
CREATE TABLE gateway_notices (
  key text PRIMARY KEY,
  told_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX gateway_notices_told ON gateway_notices (told_at);
