-- Lich on PostgreSQL: the gateway's conversation log, claims and outbox, and session transcripts.
-- Run by `lich db migrate` (or `migrate()`), once per database, inside one transaction.

-- One row per conversation: its claim epoch (the fencing token), the next seq of its log, and
-- the session it continues.
CREATE TABLE conversations (
  conversation_key text PRIMARY KEY,
  epoch bigint NOT NULL DEFAULT 0,
  next_seq bigint NOT NULL DEFAULT 1,
  session_id text
);

-- Every inbound message, once: a redelivery (to any node) hits the UNIQUE and is dropped.
CREATE TABLE inbound (
  platform text NOT NULL,
  account text NOT NULL,
  platform_message_id text NOT NULL,
  conversation_key text NOT NULL,
  seq bigint NOT NULL,
  message jsonb NOT NULL,
  logged_at timestamptz NOT NULL DEFAULT now(),
  done boolean NOT NULL DEFAULT false,
  UNIQUE (platform, account, platform_message_id),
  UNIQUE (conversation_key, seq)
);
CREATE INDEX inbound_pending ON inbound (conversation_key, seq) WHERE NOT done;

-- Replies to send, one row per chunk, keyed by `<conversation>#<seq>#<chunk>`.
CREATE TABLE outbox (
  key text PRIMARY KEY,
  conversation_key text NOT NULL,
  seq bigint NOT NULL,
  chunk_index integer NOT NULL,
  entry jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz
);
CREATE INDEX outbox_unsent ON outbox (conversation_key, seq, chunk_index) WHERE sent_at IS NULL;

-- Sessions: a summary for listings, and the epoch of the handle that may append.
CREATE TABLE sessions (
  id text PRIMARY KEY,
  epoch bigint NOT NULL DEFAULT 1,
  created timestamptz NOT NULL,
  updated timestamptz NOT NULL,
  work_dir text NOT NULL,
  model text NOT NULL,
  title text NOT NULL DEFAULT '',
  runs integer NOT NULL DEFAULT 0,
  usage jsonb NOT NULL DEFAULT '{}',
  records integer NOT NULL DEFAULT 0,
  bytes bigint NOT NULL DEFAULT 0
);
CREATE INDEX sessions_updated ON sessions (updated DESC, id DESC);

-- The records of every session, the same objects as the lines of a JSONL session file.
CREATE TABLE session_records (
  session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  seq integer NOT NULL,
  record jsonb NOT NULL,
  PRIMARY KEY (session_id, seq)
);

-- Named leases (the ingress of a platform that allows one consumer), for people reading the
-- database: the lease itself is an advisory lock held by a node's connection.
CREATE TABLE leases (
  name text PRIMARY KEY,
  holder text NOT NULL,
  epoch bigint NOT NULL DEFAULT 1,
  taken_at timestamptz NOT NULL DEFAULT now()
);
