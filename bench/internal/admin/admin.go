// Package admin calls taskd's administrative API for the bench programs:
// one signed call, its answer decoded, an answer other than "status":"ok"
// returned as an error.
package admin

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/taskd/taskd/wire"
)

// Call posts one action to {accountURL}/api/admin/v2/, signed with key's
// hash, and returns the decoded answer.
func Call(c *http.Client, accountURL, key string, params url.Values) (map[string]any, error) {
	q := params.Encode()
	res, err := c.Post(accountURL+"/api/admin/v2/?"+q+"&hash="+wire.Hash(q, key), "application/x-www-form-urlencoded", nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", params.Get("action"), err)
	}
	defer res.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("%s: decode the answer: %w", params.Get("action"), err)
	}
	if body["status"] != "ok" {
		return body, fmt.Errorf("%s: %v", params.Get("action"), body)
	}
	return body, nil
}
