-- Webhook queues (see store/deliveries.go): on SQLite fan-out records, per
-- webhook, the lowest event queued for it that has no delivery yet, and the
-- deliveries are made when the webhook is sent to. PostgreSQL writes the
-- deliveries at fan-out and leaves the table empty; it exists on both so
-- that the queries are the same.
CREATE TABLE webhook_queues (
	webhook_id  BIGINT PRIMARY KEY REFERENCES webhooks (id) ON DELETE CASCADE,
	queued_from BIGINT NOT NULL -- 0: nothing queued
);
