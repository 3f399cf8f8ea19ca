// Package taskd is what the work-management service is about: its nouns,
// the rules they follow, and the interfaces of the store that keeps them.
// It does no I/O.
//
// It holds:
//
//   - the nouns: accounts, people and their memberships (account.go),
//     the account's directory of teams, contacts and folders
//     (directory.go), projects, tasks, comments, cost lines and timers,
//     tags, files, OAuth applications and their grants (application.go),
//     webhooks and their deliveries (hooks.go), invitations, the mail
//     outbox, and the events of changes (event.go) with the notifications
//     followers are told (notification.go);
//   - the rules that hold whatever the front end: an input's bounds
//     (CleanName, CheckDate and CheckDateRange in date.go, a cost line's
//     bounds), the rules of state (CanComplete, CanReopen, CanLogCost …)
//     and of ids (id.go);
//   - permissions: who may do what (authz.go), who sees what — the Viewer
//     every read takes (viewer.go) — and what a change of trust ends
//     (trust.go);
//   - error kinds (errors.go): the one error type of the domain and the
//     store, which each front end maps to its answers in one table;
//   - what an import of a source account records with each object it
//     makes (import.go): its mapping to the source's id, the roles that
//     wait for invited people, carried by the creation's input
//     (ImportRecord);
//   - the store's narrow interfaces, one per family of data (store.go and
//     beside each noun), which package store implements.
//
// How these are spelled on the wire — the account API's parameters,
// amounts, dates, and the fields events report — is package wire's; the
// query language of search_tasks and get_costs is package filter's, which
// reads it into this package's Query.
package taskd
