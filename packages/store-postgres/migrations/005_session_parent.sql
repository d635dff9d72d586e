-- The session whose `task` tool started this one (a subagent), so a listing can put children
-- beneath their parents. No foreign key: a parent may be deleted and its children kept.
ALTER TABLE sessions ADD COLUMN parent_session_id text;
CREATE INDEX sessions_parent ON sessions (parent_session_id) WHERE parent_session_id IS NOT NULL;
