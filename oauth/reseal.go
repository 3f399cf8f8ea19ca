package oauth

// SigningKeyAD is the additional data signing keys are sealed with: what
// a master-key rotation opens them with.
func SigningKeyAD() []byte { return append([]byte(nil), sealAD...) }
