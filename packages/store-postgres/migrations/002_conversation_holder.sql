-- The node that claimed each conversation last: a message logged on another node is left to it
-- (it has the session loaded), so conversations stay on one node unless it is busy or gone.
ALTER TABLE conversations ADD COLUMN holder text;
