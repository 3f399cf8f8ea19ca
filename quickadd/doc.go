// Package quickadd reads the one-line form of a new task:
//
//	Write copy @dana !high due fri #design
//
// Parse splits a line into the task's name and its shortcuts (assignee,
// priority, due and start dates, tags), with dates relative to a given
// day; MatchPerson and MatchTag resolve the assignee and the tags against
// the account's members and tags, given as plain values: the package
// imports nothing of the module. The grammar is documented in
// docs/ui.md, "One-line add (issue 35)".
package quickadd
