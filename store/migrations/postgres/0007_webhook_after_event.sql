-- A webhook hears of the events written after it was created: those whose
-- id is above after_event. Comparing creation times, at millisecond
-- resolution, let through an event made in the same millisecond as the
-- webhook, just before it.
ALTER TABLE webhooks ADD COLUMN after_event BIGINT NOT NULL DEFAULT 0;
UPDATE webhooks SET after_event = COALESCE((SELECT MAX(id) FROM events WHERE events.created_at < webhooks.created_at), 0);
