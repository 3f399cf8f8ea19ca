package taskd

// ActivityQuery selects the events of an account's activity feed (issue
// 35): those its Viewer sees, by the rule of get_events and webhooks,
// newest first.
type ActivityQuery struct {
	Viewer Viewer
	// ProjectID, when set, keeps the project's events.
	ProjectID int64
	// PersonID, when set, keeps the events the person made.
	PersonID int64
	// Before, when set, keeps the events older than this event id (the
	// next page).
	Before int64
	// Limit bounds the page; 0 or more than MaxActivity: MaxActivity.
	Limit int
}

// MaxActivity bounds one page of an activity feed.
const MaxActivity = 100
