package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// errHelp reports that --help was asked for and printed.
var errHelp = errors.New("help printed")

// helpOK turns errHelp into success: asking for help is not a failure.
func helpOK(err error) error {
	if errors.Is(err, errHelp) {
		return nil
	}
	return err
}

// newFlags makes a flag set whose usage names the command.
func newFlags(name, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: taskd %s [flags]\n\n%s\n\nFlags (each also read from TASKD_<FLAG>):\n", name, summary)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args after filling each flag from TASKD_<NAME> in the
// environment; the command line wins. --help prints the command's usage
// to stdout. A bad flag is reported once, in the returned error, with a
// short usage line, not followed by every flag; a flag listed in required
// that is still empty is named.
func parseFlags(fs *flag.FlagSet, e env, args []string, required ...string) error {
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		name := envName(f.Name)
		if v := e.getenv(name); v != "" {
			if err := f.Value.Set(v); err != nil && envErr == nil {
				envErr = fmt.Errorf("%s: %w", name, err)
			}
		}
	})
	if envErr != nil {
		return envErr
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" || a == "-help" {
			fs.SetOutput(e.stdout)
			fs.Usage()
			return errHelp
		}
	}
	fs.SetOutput(io.Discard) // the error is returned, and printed once by main
	if err := fs.Parse(args); err != nil {
		return flagError(fs, err)
	}
	if fs.NArg() > 0 {
		return flagError(fs, fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	for _, name := range required {
		if f := fs.Lookup(name); f != nil && f.Value.String() == "" {
			what, _, _ := strings.Cut(f.Usage, " (required")
			return flagError(fs, fmt.Errorf("--%s is required: %s", name, what))
		}
	}
	return nil
}

// flagError adds a short usage line to a flag error, and a guess when an
// unknown flag is near a known one.
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var known []string
		fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
		msg = fmt.Sprintf("unknown flag --%s", name)
		if near := nearest(name, known); near != "" {
			msg += fmt.Sprintf("; did you mean --%s?", near)
		}
	}
	return fmt.Errorf("%s\nusage: taskd %s [flags]; \"taskd help %[2]s\" lists them", msg, fs.Name())
}

// envName is the environment variable that sets a flag.
func envName(flag string) string {
	return "TASKD_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}
