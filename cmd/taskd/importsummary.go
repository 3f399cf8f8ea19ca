package main

import (
	"fmt"
	"io"

	"github.com/taskd/taskd/importer"
)

// printSummary writes an import's summary for a terminal, in 80 columns but
// for long addresses and reasons: the counts of each family, the people
// made or invited with their roles, and what was skipped.
func printSummary(e env, sum importer.Summary) {
	verb := "created"
	if sum.DryRun {
		verb = "to create"
	}
	fmt.Fprintf(e.stdout, "imported %s into %s\n", sum.Source, sum.Account)
	fmt.Fprintf(e.stdout, "  %-9s %8s %10s %8s %10s %8s\n", "", "read", verb, "updated", "unchanged", "skipped")
	for _, c := range sum.Families {
		fmt.Fprintf(e.stdout, "  %-9s %8d %10d %8d %10d %8d\n", c.Family, c.Read, c.Created, c.Updated, c.Unchanged, c.Skipped)
	}
	printPeople(e.stdout, sum)
	if len(sum.Skipped) > 0 {
		fmt.Fprintln(e.stdout, "skipped:")
		for _, s := range sum.Skipped {
			id := ""
			if s.SourceID != "" {
				id = " " + s.SourceID
			}
			fmt.Fprintf(e.stdout, "  %s%s: %s\n", s.Family, id, s.Reason)
		}
	}
}

// printPeople lists who an import made a member or invited (a dry run:
// would), one a line, "made"/"invited", the role here and the address,
// and says which owners and admins of the source arrive as users.
func printPeople(w io.Writer, sum importer.Summary) {
	if len(sum.People) == 0 {
		return
	}
	if sum.DryRun {
		fmt.Fprintln(w, "people the import would make members or invite, with their roles here:")
	} else {
		fmt.Fprintln(w, "people made members or invited, with their roles here:")
	}
	demoted := 0
	for _, p := range sum.People {
		note := ""
		if p.Demoted {
			demoted++
			note = fmt.Sprintf("  (%s there)", p.SourceRole)
		}
		fmt.Fprintf(w, "  %-8s %-7s %s%s\n", p.How, p.Role, p.Email, note)
	}
	if demoted == 0 {
		return
	}
	who, are := fmt.Sprintf("%d owners or admins", demoted), "users"
	if demoted == 1 {
		who, are = "1 owner or admin", "a user"
	}
	if sum.DryRun {
		fmt.Fprintf(w, "%s of the source (marked \"there\") would arrive as %s:\n"+
			"--admins does not name them. Name in --admins who should be an admin.\n", who, are)
		return
	}
	fmt.Fprintf(w, "%s of the source (marked \"there\") arrived as %s:\n"+
		"--admins did not name them. A run changes no member's role: raise who\n"+
		"should be an admin on the people page.\n", who, are)
}
