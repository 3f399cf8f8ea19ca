package taskd

import (
	"context"
	"time"
)

// Team is a group of an account's members (a "user group" of the API).
// A client team holds people from outside the company.
type Team struct {
	ID     int64
	Title  string
	Client bool
}

// Folder is a named folder of an account: of projects or of contacts.
type Folder struct {
	ID    int64
	Title string
}

// Contact is someone an account keeps the details of without making them
// a member: no sign-in, no invitation.
type Contact struct {
	ID        int64
	Email     string
	FirstName string
	LastName  string
	Folder    string // the folder's title; "" for none
	Profile          // Title, phones and addresses
	Added     time.Time
}

// DisplayName is how a contact is named.
func (c Contact) DisplayName() string { return displayName(c.FirstName, c.LastName, c.Email) }

// MaxTitleLen bounds the titles of teams and folders and the short fields
// of people, in bytes.
const MaxTitleLen = 200

// DirectoryStore keeps an account's directory: its teams, its contacts
// and their folders, the folders of its projects, and its members' working
// schedules.
type DirectoryStore interface {
	ScheduleStore
	Teams(ctx context.Context, accountID int64) ([]Team, error)
	// AddTeam creates a team unless one has the title; either way it
	// returns the team with the title.
	AddTeam(ctx context.Context, by Actor, title string, client bool) (Team, error)
	ContactFolders(ctx context.Context, accountID int64) ([]Folder, error)
	AddContactFolder(ctx context.Context, by Actor, title string) (Folder, error)
	Contacts(ctx context.Context, accountID int64) ([]Contact, error)
	// AddContact adds a contact; the folder, named by title, is made when
	// missing. A conflict when the account has a contact with the e-mail.
	AddContact(ctx context.Context, by Actor, c Contact) (Contact, error)
	ProjectFolders(ctx context.Context, accountID int64) ([]Folder, error)
	AddProjectFolder(ctx context.Context, by Actor, title string) (Folder, error)
}

// ProjectTeamStore keeps who is on a project's team and who follows a
// task.
type ProjectTeamStore interface {
	// ProjectMembers lists a project's team.
	ProjectMembers(ctx context.Context, accountID, projectID int64) ([]PersonRef, error)
	// SetProjectMembers adds (add) or removes members of the account,
	// named by e-mail, to or from a project's team; a guest or reader
	// taken off it loses what they kept running there (TrustEnded: their
	// timer, their waiting notifications). Not found ("member", naming the
	// e-mail in the message) when an e-mail is not a member's.
	SetProjectMembers(ctx context.Context, by Actor, projectID int64, emails []string, add bool) (TrustEnded, error)
	// ProjectSubscribers returns the subscribers of every task of a
	// project that has any, by task id.
	ProjectSubscribers(ctx context.Context, accountID, projectID int64) (map[int64][]PersonRef, error)
	// Subscribers lists the people subscribed to a task.
	Subscribers(ctx context.Context, accountID, taskID int64) ([]PersonRef, error)
	// Subscribe subscribes (on) or unsubscribes a member to a task.
	Subscribe(ctx context.Context, by Actor, taskID int64, email string, on bool) error
}
