package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
)

// fingerprint is a digest of what is written of a source object: the
// input after the source's people and tags are resolved to local ones.
// An invited person is named in it as the member they will be: what is
// written without them is kept for them and given to them when they
// accept (taskd.WaitingRole), so the accepting changes no fingerprint and the
// next run has nothing to do.
func fingerprint(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // plain structs of strings and numbers
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// quote is a name in the report: in quotes, as %q writes it.
func quote(s string) string { return strconv.Quote(s) }
