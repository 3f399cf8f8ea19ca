package main

import (
	"context"
	"fmt"

	"github.com/taskd/taskd/internal/buildinfo"
)

func version(_ context.Context, e env, args []string) error {
	fs := newFlags("version", "Print the module version, the commit and the Go version this binary was built from.")
	asJSON := fs.Bool("json", false, "print one JSON object instead of a line")
	if err := parseFlags(fs, e, args); err != nil {
		return helpOK(err)
	}
	in := buildinfo.Read()
	if *asJSON {
		return printJSON(e.stdout, in)
	}
	_, err := fmt.Fprintln(e.stdout, in)
	return err
}
