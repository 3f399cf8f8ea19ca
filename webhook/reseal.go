package webhook

// SealAD is the additional data an account's webhook secrets and
// passwords are sealed with: what a master-key rotation opens them with.
func SealAD(accountID int64) []byte { return sealAD(accountID) }
