-- What the retention prune looks for: answered messages and sent chunks, by age.
CREATE INDEX inbound_done ON inbound (logged_at) WHERE done;
CREATE INDEX outbox_sent ON outbox (created_at) WHERE sent_at IS NOT NULL;
