package taskd

import (
	"strconv"
	"strings"
)

// ParseID reads a positive decimal id of the object named by field.
// Anything else, including signs, leading zeros and overflow, names no
// object: a KindNotFound error.
func ParseID(s, field string) (int64, error) {
	if len(s) == 0 || len(s) > 18 || s[0] == '0' {
		return 0, NotFound(field)
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, NotFound(field)
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, NotFound(field)
	}
	return n, nil
}

// ParseProjectIDs reads a comma-separated list of project ids.
func ParseProjectIDs(s string) ([]int64, error) {
	var out []int64
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		id, err := ParseID(p, "project")
		if err != nil {
			return nil, &Error{Kind: KindNotFound, Field: "project", Value: p}
		}
		out = append(out, id)
	}
	return out, nil
}

// JoinIDs renders ids as the API's comma-separated string.
func JoinIDs(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(parts, ",")
}
