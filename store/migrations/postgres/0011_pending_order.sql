-- A webhook's pending deliveries are sent in the order they were made
-- (delivery id). Fan-out runs one at a time (an advisory lock), so that is
-- the order the events became visible: the order their changes committed.
DROP INDEX deliveries_pending;
CREATE INDEX deliveries_pending ON deliveries (webhook_id, id) WHERE state = 'pending';
