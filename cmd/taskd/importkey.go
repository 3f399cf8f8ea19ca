package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// maxKeyBytes bounds what a key file or standard input may hold: a key
// is a line (taskd's and Worksection's are 32 hex digits).
const maxKeyBytes = 1024

// keyWays names the ways to give the source's key, for the help and the
// errors.
const keyWays = "in TASKD_KEY, in a file (--key-file PATH), or on standard input (--key -)"

// sourceKey is the source's administrative key of taskd import from the
// one place it was given: --key (TASKD_KEY; "-" reads standard input) or
// --key-file (TASKD_KEY_FILE). Exactly one must be given. No error carries
// the key, nor what a file or the input held; a key file that others may
// read is warned of (warn).
func sourceKey(e env, key, file string, warn func(string)) (string, error) {
	switch {
	case key != "" && file != "":
		return "", errors.New("the source's key is given twice, by --key (or TASKD_KEY) and by --key-file: give it one way")
	case key == "" && file == "":
		return "", errors.New("the source's administrative key is required: give it " + keyWays)
	case key == "-":
		return readKey(e.stdin, "standard input (--key -)")
	case file != "":
		f, err := os.Open(file)
		if err != nil {
			return "", fmt.Errorf("--key-file: %w", err)
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o077 != 0 {
			warn(fmt.Sprintf("the key file %s may be read by other users (mode %04o): chmod 600 %s", file, st.Mode().Perm(), file))
		}
		return readKey(f, "--key-file "+file)
	}
	return key, nil
}

// readKey reads a key, one line, from r (named from in errors): the
// spaces and line ends around it are dropped.
func readKey(r io.Reader, from string) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxKeyBytes+1))
	if err != nil {
		return "", fmt.Errorf("the source's key from %s: %w", from, err)
	}
	if len(b) > maxKeyBytes {
		return "", fmt.Errorf("%s holds more than a key (at most %d bytes)", from, maxKeyBytes)
	}
	key := strings.TrimSpace(string(b))
	switch {
	case key == "":
		return "", fmt.Errorf("%s holds no key", from)
	case strings.ContainsAny(key, " \t\r\n"):
		return "", fmt.Errorf("%s holds more than one word: a key is one line, without spaces", from)
	}
	return key, nil
}
