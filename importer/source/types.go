package source

import "time"

// Ids are the source's, kept as strings (Worksection and taskd send them as
// strings, some as numbers; both are read). Dates without a time of day
// (Date fields) are "YYYY-MM-DD" or "" (calendar dates, no zone); times are
// UTC. Texts are cleaned and cut to taskd's limits; each object's Notes say
// what was cut or left out, for the importer's report.

// Person is someone inside an object: {"id","email","name"}, or only a
// display name where the source sends a string (spec C1).
type Person struct {
	ID, Email, Name string
}

// The display names Worksection gives the assignee keywords, which are
// all a task of the OAuth example's shape carries of them (C1).
const (
	nobodyName = "Executive isn't assigned"
	anyoneName = "Anyone"
)

// Nobody is "Executive isn't assigned" (NOONE, or that display name alone)
// or no person at all.
func (p Person) Nobody() bool {
	return p.Email == "NOONE" || (p.ID == "" && p.Email == "" && (p.Name == "" || p.Name == nobodyName))
}

// Anyone is the assignee keyword ANY, or its display name alone.
func (p Person) Anyone() bool {
	return p.Email == "ANY" || (p.ID == "" && p.Email == "" && p.Name == anyoneName)
}

// User is a member of the account (get_users).
type User struct {
	ID, FirstName, LastName, Name  string
	Title, Group, Department, Role string
	Email                          string
	Phone, Phone2, Phone3, Phone4  string
	Address, Address2              string
	Contacts                       string // Worksection's free-text "other contacts"
	Rate                           string // hourly rate as a decimal, "" when not set
	Added                          time.Time
	Notes                          []string
}

// Contact is someone the account deals with who is not a member
// (get_contacts); Group is its folder's title.
type Contact struct {
	ID, FirstName, LastName, Name string
	Title, Group, Email           string
	Phone, Phone2, Phone3, Phone4 string
	Address, Address2             string
	Added                         time.Time
	Notes                         []string
}

// Team is a team of people (get_user_groups); Client marks an external
// client's team.
type Team struct {
	ID, Title, Type string
	Client          bool
}

// Folder is a project folder (get_project_groups) or a contact folder
// (get_contact_groups). Type is "folder" or, for project folders made with
// a team, "company".
type Folder struct {
	ID, Title, Type string
	Client          bool
}

// TagKind says whose tags: tasks' or projects' (separate namespaces).
type TagKind string

// The two kinds of tags.
const (
	TaskTags    TagKind = "task"
	ProjectTags TagKind = "project"
)

// TagGroup is a group of tags: Type "status" (one per object) or "label",
// Access "public" or "private".
type TagGroup struct {
	ID, Title, Type, Access string
}

// Tag is a tag with its group.
type Tag struct {
	ID, Title string
	Group     TagGroup
}

// TagRef is a tag on an object, in the order the source gives.
type TagRef struct {
	ID, Title string
}

// Project is a project with its team, options and budget.
type Project struct {
	ID, Name, Page string
	Status         string // active, pending or archive
	Author         Person // user_from
	Manager        Person // user_to
	Text           string
	Added          time.Time
	Start, End     string // YYYY-MM-DD or ""
	Closed         time.Time
	Folder         string // company: the folder's title
	MaxMinutes     int64  // max_time, 0 when not set
	MaxCents       int64  // max_money, 0 when not set
	Tags           []TagRef
	Options        map[string]bool // options.* flags the source sent
	Members        []Person        // users: the project's team
	Notes          []string
}

// Task is a task, subtask or sub-subtask; Children are the next level.
type Task struct {
	ID, Name, Page string
	ProjectID      string
	ParentID       string // "" for a top-level task
	Level          int    // 1 task, 2 subtask, 3 sub-subtask
	Status         string // active or done
	Priority       int    // 0..10
	Author         Person
	Assignee       Person
	Text           string
	Added          time.Time
	Start, End     string // YYYY-MM-DD or ""
	TimeEnd        string // HH:MM or ""
	Closed         time.Time
	MaxMinutes     int64
	MaxCents       int64
	Tags           []TagRef
	Files          []File
	Subscribers    []Person
	Hidden         []Person // who alone may see it, where the source says (taskd with extra=hidden)
	HiddenKnown    bool     // the answer carried a hidden list
	From, To       []Relation
	Children       []Task
	Notes          []string
}

// Relation is a dependency: Type finish-to-start or start-to-start, Task
// the other task's id. A task's From lists the tasks it depends on, To
// those that depend on it.
type Relation struct {
	Type, Task string
}

// Comment is a comment of a task, with its files.
type Comment struct {
	ID, Page, Text string
	TaskID         string
	Added          time.Time
	Author         Person
	Files          []File
	Hidden         []Person
	HiddenKnown    bool
	Notes          []string
}

// File is an attached file; Name is cleaned as taskd cleans uploads. Size
// is -1 when the source did not say.
type File struct {
	ID, Name, Page string
	Size           int64
	Added          time.Time
	Author         Person
}

// Cost is a cost line: time in minutes, money in cents.
type Cost struct {
	ID, Comment string
	Minutes     int64
	Cents       int64
	Date        string // YYYY-MM-DD
	IsTimer     bool
	Author      Person
	TaskID      string
	ProjectID   string
	Notes       []string
}
