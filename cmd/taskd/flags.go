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

// newFlags makes a flag set whose usage names the command, says what it
// does (summary) and lists the flags defined on it, and only those.
func newFlags(name, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), usageOf(fs, summary)) }
	return fs
}

// usageOf is a command's help: its usage line, what it does, and its
// flags in the form the errors and the README use (--flag).
func usageOf(fs *flag.FlagSet, summary string) string {
	var b strings.Builder
	var n int
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		fmt.Fprintf(&b, "Usage: taskd %s\n\n%s\nIt takes no flags.\n", fs.Name(), wrap(summary, ""))
		return b.String()
	}
	fmt.Fprintf(&b, "Usage: taskd %s [flags]\n\n%s\nFlags (each also read from TASKD_<FLAG>, e.g. %s for --%s):\n",
		fs.Name(), wrap(summary, ""), envName(firstFlag(fs)), firstFlag(fs))
	fs.VisitAll(func(f *flag.Flag) {
		kind, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if kind != "" {
			line += " " + kind
		}
		if def := f.DefValue; def != "" && def != "0" && def != "false" && def != "0s" {
			usage += fmt.Sprintf(" (default %s)", def)
		}
		b.WriteString(line + "\n" + wrap(usage, "      "))
	})
	return b.String()
}

// wrap breaks text into lines of at most 80 columns that start with
// indent, each ending in a newline.
func wrap(text, indent string) string {
	var b strings.Builder
	line := indent
	for _, word := range strings.Fields(text) {
		if line != indent && len([]rune(line))+1+len([]rune(word)) > 80 {
			b.WriteString(line + "\n")
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += word
	}
	b.WriteString(line + "\n")
	return b.String()
}

// firstFlag is the name of the first flag in fs, in order of name.
func firstFlag(fs *flag.FlagSet) string {
	var name string
	fs.VisitAll(func(f *flag.Flag) {
		if name == "" {
			name = f.Name
		}
	})
	return name
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
				envErr = fmt.Errorf("%s (--%s): invalid value %q: %w", name, f.Name, v, err)
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
			_, usage := flag.UnquoteUsage(f)
			what, _, _ := strings.Cut(usage, " (required")
			return flagError(fs, fmt.Errorf("--%s is required: %s", name, what))
		}
	}
	return nil
}

// flagError adds a short usage line to a flag error, names flags as
// --flag (the package flag writes -flag), and guesses when an unknown flag
// is near a known one.
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var known []string
		fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
		msg = fmt.Sprintf("unknown flag --%s", name)
		if near := nearest(name, known); near != "" {
			msg += fmt.Sprintf("; did you mean --%s?", near)
		} else if len(known) == 0 {
			msg += fmt.Sprintf("; taskd %s takes no flags", fs.Name())
		}
	} else if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		msg = fmt.Sprintf("--%s needs a value", name)
	} else {
		// invalid value "x" for flag -name: …, invalid boolean value "x" for -name: …
		for _, from := range []string{" for flag -", " for -"} {
			if before, after, ok := strings.Cut(msg, from); ok {
				msg = before + " for --" + after
				break
			}
		}
	}
	usage := fmt.Sprintf("usage: taskd %s [flags]; \"taskd help %[1]s\" lists them", fs.Name())
	if firstFlag(fs) == "" {
		usage = fmt.Sprintf("usage: taskd %s", fs.Name())
	}
	return fmt.Errorf("%s\n%s", msg, usage)
}

// envName is the environment variable that sets a flag.
func envName(flag string) string {
	return "TASKD_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}
