// Package views holds the dashboard's HTML, written as templ components, and
// the plain view-model types they render. Handlers build these types from the
// database and hand them to a component; views itself depends only on the
// standard library and templ.
//
// Regenerate the *_templ.go files after editing a .templ file:
//
//	go run github.com/a-h/templ/cmd/templ@v0.3.977 generate -path views
package views

import "time"

// Page is what every full page needs: title, the signed-in user, asset paths and the CSRF token.
type Page struct {
	Title   string
	Nav     string                   // active nav item: "cluster", "queue", "bookings", "usage", "admin"
	User    *User                    // nil when signed out
	CSRF    string                   // token for forms (hidden input name "_csrf") and htmx (hx-headers X-CSRF-Token)
	Assets  func(name string) string // static path resolver, e.g. Assets("app.css")
	DevMode bool                     // show a "dev" badge in the nav
	Flash   string
}

// Asset resolves a static file name to its URL through p.Assets, falling back
// to the unhashed "/static/"+name when no resolver is set (as in tests).
func (p Page) Asset(name string) string {
	if p.Assets == nil {
		return "/static/" + name
	}
	return p.Assets(name)
}

// FullTitle is the document title: "Title · GPUScheduler", or just the
// product name when Title is empty.
func (p Page) FullTitle() string {
	if p.Title == "" {
		return "GPUScheduler"
	}
	return p.Title + " · GPUScheduler"
}

// User is the signed-in person as pages show them.
type User struct {
	ID    int64
	Email string
	Name  string
	Role  string // "admin" or "member"
	// TimeZone is the IANA zone the user's times are shown in ("UTC" when
	// unset); ZoneUnset asks the page's script to offer the browser's zone.
	TimeZone   string
	ZoneAbbrev string // "CET" now
	ZoneUnset  bool
}

// IsAdmin reports whether the user has the admin role. A nil user is not an admin.
func (u *User) IsAdmin() bool {
	return u != nil && u.Role == "admin"
}

// DisplayName is the user's name, or their email when the name is empty.
func (u *User) DisplayName() string {
	if u == nil {
		return ""
	}
	if u.Name != "" {
		return u.Name
	}
	return u.Email
}

// Cluster is the overview page's model.
type Cluster struct {
	Totals    ClusterTotals
	Nodes     []Node
	UpdatedAt time.Time // when the server built this snapshot; "ago" texts count from it
	// Ray is the Ray cluster's connection; nil when none is configured.
	Ray *RayStatus
	// MyJobs are the signed-in user's live jobs (nil: not shown).
	MyJobs []MyJob
	// Next24 is what starts and ends in the next 24 hours, by time (nil: not shown).
	Next24 []SoonEvent
}

// SoonEvent is a booking, hold or job starting or ending soon.
type SoonEvent struct {
	At   time.Time
	Kind string // "booking", "hold", "job"
	Ends bool   // an end, not a start
	What string // "ana's booking of 2 GPUs starts"
	Href string // the booking's or job's page
}

// MyJob is one of the user's live jobs, at a glance.
type MyJob struct {
	ID       int64
	Name     string
	State    string // queued, scheduled, allocating, running, preempted
	GPUs     int
	Size     string    // what it holds in words: "2 GPUs", "1 1g.10gb slice", "0.25 of a shared GPU"
	Since    time.Time // submitted (pending) or started (running)
	Position int       // place in the queue; 0 when not queued
	Reason   string    // why it waits
	StartsAt time.Time // estimated start; zero when unknown
}

// RayStatus is the Ray cluster line above the GPU grid.
type RayStatus struct {
	Address    string
	Connected  bool
	RayVersion string
	LastError  string
	DownSince  time.Time // zero while connected
}

// ClusterTotals are the headline numbers above the GPU grid.
type ClusterTotals struct {
	Nodes, NodesUp        int
	GPUs, Free, Allocated int
	Unavailable           int
	// Foreign GPUs run processes the scheduler did not start.
	Foreign int
	// Reserved GPUs are booked or held now (named GPUs and counts).
	Reserved int
	// Idle GPUs are allocated but near 0% utilization for a while.
	Idle int
	// Slices, FreeSlices and AllocatedSlices count MIG devices, which the
	// GPU counts above leave out (a GPU in MIG mode is offered as its slices).
	Slices, FreeSlices, AllocatedSlices int
	// Shares, FreeShares and AllocatedShares count slots of shared GPUs,
	// which the GPU counts leave out too.
	Shares, FreeShares, AllocatedShares int
	AvgUtilizationPct                   float64
	MemoryUsedMiB, MemoryTotalMiB       int64
}

// Node is one GPU machine and its devices.
type Node struct {
	ID       int64
	Name     string
	Hostname string
	Status   string // "up", "down", "draining"
	LastSeen time.Time
	GPUs     []GPU
}

// GPU is one device as the cluster page shows it.
type GPU struct {
	Node           string // its node's name: the GPU is Node:Index
	Index          int
	UUID           string
	Model          string
	MemoryUsedMiB  int64
	MemoryTotalMiB int64
	UtilizationPct int
	TemperatureC   int
	PowerW         int
	Health         string // "ok", "degraded", "failed"
	State          string // "free", "allocated", "held", "booked", "unavailable", "foreign"
	Holder         string // who holds it (user name/email) or ""
	JobID          int64  // 0 when none
	JobName        string
	// Condition says why an unavailable GPU is: "node down", "node drained",
	// "drained", "failed"; empty otherwise.
	Condition string
	// IdleSince is when an allocated GPU fell near 0% utilization (zero: busy).
	IdleSince time.Time
	// ReclaimAt is when the idle policy will give it back (zero: not warned).
	ReclaimAt time.Time
	// ReservedBy names who books or holds the GPU now (State "booked" or "held").
	ReservedBy string
	// Until says until when the GPU stays as it is, in the viewer's zone:
	// "until ~16:30 CET (in 29m)", "booked until Thu 18:00 CET",
	// "free until Thu 09:00 CET (ana's booking)"; empty when unknown.
	Until string
	// Profile is a MIG device's profile ("1g.10gb"), a slice of the GPU
	// Index (ParentUUID) worth Slices of its seven compute slices; "" for
	// a whole GPU. The node card draws a GPU in MIG mode as its slices.
	Profile    string
	ParentUUID string
	Slices     int
	// SharedSlots is, for a slot of a shared GPU (the GPU Index,
	// ParentUUID), how many slots the GPU is shared into; 0 otherwise. The
	// node card draws a shared GPU as its slots (SharedTile).
	SharedSlots int
}

// ErrorPage is shown for non-API errors.
type ErrorPage struct {
	Status    int
	Title     string
	Message   string
	RequestID string
}

// DevLogin is the loopback-only dev sign-in form.
type DevLogin struct {
	Email string
	Error string
	Next  string
	// NoAdmin is set while the server has no admin: the first person to
	// sign in here becomes one, and the form says so.
	NoAdmin bool
}
