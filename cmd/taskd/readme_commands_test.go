package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestREADMEShowsWhatCommandsPrint runs the commands of the README's
// example, in its order, on a new data directory, and checks that each
// prints what the README shows: one JSON line with the same keys in the
// same order, each value of the same JSON type, and the same status.
func TestREADMEShowsWhatCommandsPrint(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "Run on a new `--data`, they print:\n\n```sh\n")
	block, _, _ = strings.Cut(block, "```")
	if !ok || block == "" {
		t.Fatal("README.md has no example of what the commands print")
	}
	st := storage{data: filepath.Join(t.TempDir(), "data")}
	backups := t.TempDir()
	var newKey string
	lines := strings.Split(strings.TrimSpace(block), "\n")
	for i := 0; i < len(lines); i += 2 {
		command, ok := strings.CutPrefix(lines[i], "$ taskd ")
		if !ok || i+1 == len(lines) {
			t.Fatalf("README.md: %q is not a command followed by what it prints", lines[i])
		}
		want := lines[i+1]
		args := shellWords(t, strings.ReplaceAll(command, "/backups/", backups+"/"))
		for j, a := range args {
			switch a {
			case "NEW":
				args[j] = newKey
			case "OLD":
				old, err := os.ReadFile(filepath.Join(st.data, "master.key"))
				if err != nil {
					t.Fatal(err)
				}
				args[j] = strings.TrimSpace(string(old))
			}
		}
		name := strings.Join(args[:min(2, len(args))], " ")
		if _, ok := commandFlags[name]; !ok {
			name = args[0]
		}
		if slices.Contains(commandFlags[name], "data") {
			args = append(args, "--data", st.data)
		}
		out, _, err := runCLI(args...)
		if err != nil {
			t.Fatalf("taskd %s: %v", command, err)
		}
		got := strings.TrimSuffix(out, "\n")
		if strings.Contains(got, "\n") || !sameShape(t, got, want) {
			t.Errorf("taskd %s printed\n%s\nREADME.md shows\n%s", command, got, want)
		}
		if name == "master-key new" {
			var m map[string]string
			json.Unmarshal([]byte(got), &m)
			newKey = m["master_key"]
		}
	}
}

// sameShape reports whether two JSON objects have the same keys in the
// same order, values of the same JSON types, and the same status and
// database.
func sameShape(t *testing.T, got, want string) bool {
	t.Helper()
	g, w := jsonShape(t, got), jsonShape(t, want)
	return slices.Equal(g, w)
}

// jsonShape is an object's keys in order, each with its value's JSON type
// (and the value itself for status and database).
func jsonShape(t *testing.T, line string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("%q is not a JSON object", line)
	}
	var shape []string
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		kind := "string"
		switch v.(type) {
		case json.Number:
			kind = "number"
		case string:
		default:
			kind = "other"
		}
		if s, ok := v.(string); ok && (key == "status" || key == "database") {
			kind += " " + s
		}
		shape = append(shape, key.(string)+": "+kind)
	}
	return shape
}

// shellWords splits a command line of the README into its arguments:
// words, and words in single or double quotes.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var out []string
	var word strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			word.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ':
			if inWord {
				out = append(out, word.String())
				word.Reset()
				inWord = false
			}
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		t.Fatalf("unclosed quote in %q", line)
	}
	if inWord {
		out = append(out, word.String())
	}
	return out
}
