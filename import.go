package taskd

import (
	"context"
	"time"
)

// The import of a source account (taskd import, issue 36) makes each
// object through the same creations as the front ends, by an actor marked
// Imported (Actor.Imported), and records with each, in the object's own
// transaction, where it came from: an import killed at any point finds
// either the object and its record or neither, and a second run changes
// only what changed in the source.

// ImportKey names an object of a source account an import reads: the
// account imported into, the source account's URL (without its key), the
// family ("project", "task", "comment", "cost", ...; ImportProject and the
// others for the objects whose creation records it) and the source's id.
type ImportKey struct {
	AccountID int64
	Source    string
	Family    string
	SourceID  string
}

// ImportMapping is what an import made of a source object: the local id
// and a fingerprint of what it last wrote from the source.
type ImportMapping struct {
	LocalID     int64
	Fingerprint string
}

// The families of ImportKey whose creation records its ImportRecord: the
// creation of each keeps only a record of its own family.
const (
	ImportProject = "project" // ProjectInput.Import
	ImportTask    = "task"    // TaskInput.Import
	ImportComment = "comment" // CommentInput.Import
	ImportCost    = "cost"    // CostInput.Import
	ImportContact = "contact" // ImportStore.AddImportedContact
	// ImportRelation's local id is the dependent task's (Relation.To).
	ImportRelation = "relation" // ImportStore.AddImportedRelation
	ImportFile     = "file"     // ImportStore.AttachImportedFile
)

// WaitingRole is a role on an imported object that waits for someone the
// account invited (by e-mail) and is theirs when they accept the
// invitation: an import writes what an invited person did in the source
// in the owner's name, and keeps what is theirs until they join. A member
// who may take it at once takes it at once.
type WaitingRole struct {
	Email string
	Role  string // WaitTaskAssignee, …
}

// The roles that wait for invited people, with what each gives on its
// object when they accept.
const (
	WaitTaskAssignee   = "task_assignee"   // assigned, if the task is still unassigned
	WaitTaskAuthor     = "task_author"     // the task's author (unless a list of its viewers leaves its author off)
	WaitTaskSubscriber = "task_subscriber" // subscribed to the task
	WaitCommentAuthor  = "comment_author"  // the comment's author (as WaitTaskAuthor)
	WaitCostAuthor     = "cost_author"     // the person of the cost line
	WaitProjectAuthor  = "project_author"  // the project's author
	WaitProjectManager = "project_manager" // the manager, if the project still has none
	WaitProjectMember  = "project_member"  // on the project's team
	WaitFileAuthor     = "file_author"     // the file's author
)

// ImportRecord is what the creation of an object by an import records
// with it, in its own transaction: the object's mapping under Key with
// Fingerprint, the source's creation date (Added, when not zero) as the
// object's own (a cost line keeps the date of its work instead), and the
// roles on it that wait for invited people (those
// of its family). It is kept only by the creation of Key's family, for an
// actor marked Imported of Key's account; any other creation ignores it
// and makes the object as it makes any.
type ImportRecord struct {
	Key         ImportKey
	Fingerprint string
	Added       time.Time
	Waiting     []WaitingRole
}

// ImportStore keeps what an import records beside the objects it makes:
// the mappings of source objects, the roles that wait for invited people,
// and the creations whose inputs have no ImportRecord of their own.
type ImportStore interface {
	// ImportMappings reads every mapping of a family of a source in the
	// account, by source id.
	ImportMappings(ctx context.Context, accountID int64, source, family string) (map[string]ImportMapping, error)
	// SetImportMapping writes (or replaces) the mapping of a source
	// object.
	SetImportMapping(ctx context.Context, k ImportKey, m ImportMapping) error
	// SetImportWaiting keeps the roles that wait on an existing object (an
	// import's update of it) for invited people; keeping one twice is no
	// error. An unknown role is an error, and nothing is kept.
	SetImportWaiting(ctx context.Context, accountID, objectID int64, waits []WaitingRole) error
	// AddImportedContact adds a contact as DirectoryStore.AddContact does,
	// with its record (family ImportContact).
	AddImportedContact(ctx context.Context, by Actor, c Contact, rec ImportRecord) (Contact, error)
	// AddImportedRelation makes r.To depend on r.From as the store's
	// AddRelation does (refused: a cycle, a task related to itself or
	// twice), with its record (family ImportRelation, mapped to r.To).
	AddImportedRelation(ctx context.Context, by Actor, r Relation, rec ImportRecord) error
	// AttachImportedFile attaches one of by's unattached uploads to a
	// project, task or comment, as FileStore.AttachFiles does, with its
	// record (family ImportFile). An upload is unseen until attached: an
	// import killed before leaves an upload the sweep removes.
	AttachImportedFile(ctx context.Context, by Actor, id int64, owner string, ownerID int64, rec ImportRecord) error
}
