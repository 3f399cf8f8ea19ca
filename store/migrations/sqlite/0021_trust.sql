-- A change of trust ends what was derived from the old trust (DESIGN §10,
-- issue 30). Webhooks remember the person they act for (NULL: the
-- account); accounts, the person the current administrative key was shown
-- to; e-mail links, whether using one ends the person's authorizations of
-- applications.
ALTER TABLE webhooks ADD COLUMN by_person INTEGER REFERENCES persons (id) ON DELETE SET NULL;
ALTER TABLE accounts ADD COLUMN api_key_by INTEGER REFERENCES persons (id) ON DELETE SET NULL;
ALTER TABLE person_tokens ADD COLUMN end_grants INTEGER NOT NULL DEFAULT 0;
-- Invitations whose inviter has left or may no longer grant their role end
-- now, as they do on every change of trust from here on.
DELETE FROM invitations WHERE invited_by IS NOT NULL AND NOT EXISTS (
	SELECT 1 FROM members m WHERE m.account_id = invitations.account_id AND m.person_id = invitations.invited_by
	AND m.role IN ('owner', 'admin'));
