package views

// Feeds is the page of a user's calendar feeds (/settings/feeds): one
// secret address per scope, shown in full only right after it is made.
type Feeds struct {
	List    []FeedRow
	NewURL  string // the address just made, shown once
	NewName string
	Done    string
	CSRF    string
	Export  string // where the bookings export downloads from
}

// FeedRow is one scope's feed.
type FeedRow struct {
	Scope   string // "mine" or "team"
	Name    string // "My bookings, holds and jobs"
	Live    bool
	Prefix  string
	Created string
}
