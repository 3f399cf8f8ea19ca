package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
)

// fingerprint is a digest of what is written of a source object: the
// input after the source's people and tags are resolved to local ones.
// A person who becomes a member later changes it, so the next run applies
// what was kept for them.
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
