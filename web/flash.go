package web

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"time"
)

// flash carries the outcome of a POST to the page after it (Post/Redirect/
// Get) in a sealed cookie that lasts a minute and is cleared when read, so
// that a secret shown once never appears in a URL or a log.
type flash struct {
	ClientID string `json:"client_id,omitempty"`
	Secret   string `json:"secret,omitempty"`
	Message  string `json:"message,omitempty"`
	Failed   bool   `json:"failed,omitempty"`
	// Link and LinkText follow Message: what it names, one click away.
	Link     string `json:"link,omitempty"`
	LinkText string `json:"link_text,omitempty"`
}

var flashAD = []byte("taskd flash")

func (s *Server) setFlash(w http.ResponseWriter, f flash) {
	b, _ := json.Marshal(f)
	s.setCookie(w, "flash", base64.RawURLEncoding.EncodeToString(s.cfg.Sealer.Seal(b, flashAD)), time.Minute)
}

func (s *Server) takeFlash(w http.ResponseWriter, r *http.Request) *flash {
	v := s.cookie(r, "flash")
	if v == "" {
		return nil
	}
	s.clearCookie(w, "flash")
	sealed, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return nil
	}
	b, err := s.cfg.Sealer.Open(sealed, flashAD)
	if err != nil {
		return nil
	}
	var f flash
	if json.Unmarshal(b, &f) != nil {
		return nil
	}
	return &f
}
