package views

// GPUSessions is the Sessions page: the user's interactive sessions and the
// form that starts a notebook.
type GPUSessions struct {
	Error string
	List  []GPUSessionRow
	// Ended are the recent sessions that have ended.
	Ended []GPUSessionRow
}

// GPUSessionRow is one session as the page shows it, every time in the
// viewer's zone.
type GPUSessionRow struct {
	ID      int64
	Kind    string
	State   string
	Where   string // where it stands, in a sentence ("number 2 in the queue: …")
	GPUs    string // "2 × H100 80GB"
	Started string
	URL     string // the proxy path, once ready
	Workdir string // where its files stay
	Live    bool
}
