-- Spending limits shared by every node: per key (a session, a work dir's day, a gateway sender's
-- day, a conversation), the dollars spent by settled model calls and those reserved by calls in
-- flight. A reservation is one UPDATE that adds to every key of a call or to none.
CREATE TABLE budget_ledger (
  key text PRIMARY KEY,
  spent_usd double precision NOT NULL DEFAULT 0 CHECK (spent_usd >= 0),
  reserved_usd double precision NOT NULL DEFAULT 0 CHECK (reserved_usd >= 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);
