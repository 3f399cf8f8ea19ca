package taskd

import (
	"regexp"
	"strings"
	"time"
)

// Role is a member's role in an account.
type Role string

// The roles, from most to least privileged. Guests and readers see only
// the projects they are members of; readers change nothing.
const (
	RoleOwner  Role = "owner"
	RoleAdmin  Role = "admin"
	RoleUser   Role = "user"
	RoleGuest  Role = "guest"
	RoleReader Role = "reader"
)

// ParseRole accepts admin, user, guest or reader (owners are made only
// with the account). The API's spelling "account admin" is admin.
func ParseRole(s string) (Role, error) {
	switch Role(s) {
	case RoleAdmin, RoleUser, RoleGuest, RoleReader:
		return Role(s), nil
	case "account admin":
		return RoleAdmin, nil
	}
	return "", Invalid("role", "Role must be admin, user, guest or reader")
}

// APIName is the role as the account API names it (spec/account-api.md
// §2.4): "account admin" for admin, the rest as they are.
func (r Role) APIName() string {
	if r == RoleAdmin {
		return "account admin"
	}
	return string(r)
}

// Limited reports whether the role sees only the projects its member is a
// member of (guests and readers).
func (r Role) Limited() bool { return r == RoleGuest || r == RoleReader }

// Account is one tenant: a customer's workspace, reached at its own URL.
type Account struct {
	ID     int64
	Slug   string
	Name   string
	APIKey []byte // the administrative key, sealed with the server's key
	Added  time.Time
	// TimeZone is the IANA zone the account's pages show times in for
	// people who chose none.
	TimeZone string
	// Currency is the ISO 4217 code the account's pages show beside money
	// ("USD" unless the account chose another). The API's amounts carry
	// none, as Worksection's do.
	Currency string
}

// DefaultCurrency is a new account's currency (the schema's default too).
const DefaultCurrency = "USD"

var currencyRE = regexp.MustCompile(`^[A-Z]{3}$`)

// ParseCurrency reads a currency code: three letters (ISO 4217's form),
// in either case; the answer is upper case.
func ParseCurrency(code string) (string, error) {
	code = strings.ToUpper(strings.TrimSpace(code))
	if !currencyRE.MatchString(code) {
		return "", Invalid("currency", "A currency is a three-letter code such as USD, EUR or UAH")
	}
	return code, nil
}

var slugRE = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$`)

// ValidateSlug checks an account slug: 1–40 lower-case letters, digits and
// inner hyphens, so that it is safe in a URL path or a host name.
func ValidateSlug(slug string) error {
	if !slugRE.MatchString(slug) {
		return Invalid("slug", "Slug must be 1-40 lower-case letters, digits or inner hyphens")
	}
	return nil
}

// Person is someone who can sign in. One person may belong to several accounts.
type Person struct {
	ID           int64
	Email        string
	PasswordHash string
	FirstName    string
	LastName     string
	Profile
}

// Profile is what a person tells about themselves, in every account.
type Profile struct {
	Title    string // position
	Phone    string
	Phone2   string // office
	Phone3   string // mobile
	Phone4   string // home
	Address  string
	Address2 string
	TimeZone string // IANA name; "" for the account's
	Notify   bool   // e-mail notifications about tasks
}

// DisplayName is how a person is named in API objects.
func (p Person) DisplayName() string { return displayName(p.FirstName, p.LastName, p.Email) }

func displayName(first, last, email string) string {
	if n := strings.TrimSpace(first + " " + last); n != "" {
		return n
	}
	return email
}

// Ref returns the short form of a person used inside API objects.
func (p Person) Ref() PersonRef { return PersonRef{ID: p.ID, Email: p.Email, Name: p.DisplayName()} }

// NewPerson is a person to create, with an already hashed password.
type NewPerson struct {
	Email        string
	PasswordHash string
	FirstName    string
	LastName     string
	Title        string // position
}

var emailRE = regexp.MustCompile(`^[^\s@<>",;]{1,64}@[^\s@<>",;]+\.[^\s@<>",;]+$`)

// NormalizeEmail lower-cases and trims an e-mail address and checks its form.
func NormalizeEmail(s string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(s))
	if len(e) > 254 || !emailRE.MatchString(e) {
		return "", Invalid("email", "E-mail address is invalid")
	}
	return e, nil
}

// Member is a person's membership of an account.
type Member struct {
	Person
	Role       Role
	Team       string // the team's title; "" for none
	Department string
	Rate       *int64 // hourly rate in minor units; nil when not set
	Added      time.Time
}

// Membership is an account a person belongs to, with their role.
type Membership struct {
	Account Account
	Role    Role
}

// PersonRef is a person as shown inside other objects: {"id","email","name"}.
// The pseudo-people Nobody and Anyone have fixed ids below every real one.
type PersonRef struct {
	ID    int64
	Email string
	Name  string
}

// Pseudo-assignees (compat). Real people have ids from FirstPersonID on.
const (
	NobodyID      int64 = 1
	AnyoneID      int64 = 2
	FirstPersonID int64 = 101
)

// Nobody and Anyone are the pseudo-people a task can be assigned to.
var (
	Nobody = PersonRef{ID: NobodyID, Email: "NOONE", Name: "Executive isn't assigned"}
	Anyone = PersonRef{ID: AnyoneID, Email: "ANY", Name: "Anyone"}
)

// Actor is who performs a change: the account and the acting person.
type Actor struct {
	AccountID int64
	Person    PersonRef
	Role      Role
	// Key marks a change made with the administrative key, acting as
	// Person: it sees the whole account (Viewer), whoever Person is.
	Key bool
	// Imported marks a change that brings over a source account's history
	// (taskd import, issue 36): it writes no event, so fires no webhook
	// and feeds no live view, and notifies nobody, so sends no digest.
	// Nothing outside the importer sets it.
	Imported bool
}

// MinPasswordLen is the shortest password accepted.
const MinPasswordLen = 8

// PreparePerson validates a new person's details and hashes the password
// with hash. An invalid error names the bad field.
func PreparePerson(email, password, first, last string, hash func(string) (string, error)) (NewPerson, error) {
	e, err := NormalizeEmail(email)
	if err != nil {
		return NewPerson{}, Invalid("email", "E-mail address is invalid")
	}
	if len(password) < MinPasswordLen {
		return NewPerson{}, Invalid("password", "The password must be at least %d characters", MinPasswordLen)
	}
	if len(first) > MaxNameLen || len(last) > MaxNameLen {
		return NewPerson{}, Invalid("first_name", "Names are limited to %d bytes", MaxNameLen)
	}
	h, err := hash(password)
	if err != nil {
		return NewPerson{}, Internal("hash password", err)
	}
	return NewPerson{Email: e, PasswordHash: h, FirstName: strings.TrimSpace(first), LastName: strings.TrimSpace(last)}, nil
}

// Zone is the first of the IANA zone names that loads: a person's zone,
// then the account's; UTC when none does.
func Zone(names ...string) *time.Location {
	for _, name := range names {
		if name == "" {
			continue
		}
		if loc, err := time.LoadLocation(name); err == nil {
			return loc
		}
	}
	return time.UTC
}
