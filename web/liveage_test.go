package web

import (
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// TestLiveMaxAgeAsDocumented (issue 47): a stream's age is Config.LiveMaxAge
// when set, else the 30 minutes the docs give (docs/architecture.md "ends
// after 30 minutes", docs/operations.md "for up to 30 minutes"), read from
// the docs so that the two cannot drift apart.
func TestLiveMaxAgeAsDocumented(t *testing.T) {
	for file, re := range map[string]*regexp.Regexp{
		"../docs/architecture.md": regexp.MustCompile(`ends after (\d+) minutes \(the page reconnects`),
		"../docs/operations.md":   regexp.MustCompile(`stream \(` + "`" + `/a/\{slug\}/live` + "`" + `\) for\s+up to (\d+) minutes`),
	} {
		doc, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m := re.FindSubmatch(doc)
		if m == nil {
			t.Fatalf("%s no longer says how long a live stream lasts (%s)", file, re)
		}
		minutes, _ := strconv.Atoi(string(m[1]))
		if got, want := (&Server{}).liveMaxAge(), time.Duration(minutes)*time.Minute; got != want {
			t.Errorf("a stream lasts %v by default; %s says %v", got, file, want)
		}
	}
	if got := (&Server{cfg: Config{LiveMaxAge: time.Second}}).liveMaxAge(); got != time.Second {
		t.Errorf("with Config.LiveMaxAge 1s a stream lasts %v", got)
	}
}
