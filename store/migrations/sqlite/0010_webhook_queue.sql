-- Fan-out no longer writes a delivery row per (event, webhook): it records,
-- per webhook, the lowest event queued for it that has no delivery yet,
-- and the deliveries are made a batch at a time when the webhook is sent
-- to. A failing or hanging destination then costs the writer nothing per
-- change. The queue has its own row, apart from the webhook's, so that
-- fan-out does not wait on the leases and attempts that update the webhook.
CREATE TABLE webhook_queues (
	webhook_id  INTEGER PRIMARY KEY REFERENCES webhooks (id) ON DELETE CASCADE,
	queued_from INTEGER NOT NULL -- 0: nothing queued
);
-- An account's events in order, for making a webhook's deliveries from its
-- queue. (The rowid is the id, so the account alone orders them by id.)
CREATE INDEX events_account ON events (account_id);
