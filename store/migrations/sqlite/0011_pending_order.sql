-- A webhook's pending deliveries are sent in the order they were made
-- (delivery id), which is the order their events were fanned out. The
-- rowid is the id, so the webhook alone orders them.
DROP INDEX deliveries_pending;
CREATE INDEX deliveries_pending ON deliveries (webhook_id) WHERE state = 'pending';
