-- Hit counts of the rate limits, one row per key and fixed window, shared
-- by every replica. Sign-in failures are counted here too.
CREATE TABLE rate_counts (
	key          TEXT NOT NULL,
	window_start BIGINT NOT NULL,
	hits         BIGINT NOT NULL,
	expires      BIGINT NOT NULL,
	PRIMARY KEY (key, window_start)
);
CREATE INDEX rate_counts_expires ON rate_counts (expires);

DROP TABLE login_failures;
