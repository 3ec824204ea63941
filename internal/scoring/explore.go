package scoring

// Explorer keeps the share of exploratory decisions within a cap, over all
// decisions it has seen and over the last window of them. It is not safe
// for concurrent use: callers serialise Decide.
type Explorer struct {
	cap      float64
	total    int64
	explored int64
	ring     []bool
	next     int
	filled   int
	inRing   int
}

// NewExplorer returns an explorer holding the share of exploratory
// decisions to cap over all decisions and over the last window.
func NewExplorer(cap float64, window int) *Explorer {
	return &Explorer{cap: cap, ring: make([]bool, max(window, 1))}
}

// Allow reports whether one more decision, exploratory, would keep both
// shares within the cap. A cap of 0 never allows.
func (e *Explorer) Allow() bool {
	if e.cap <= 0 {
		return false
	}
	if float64(e.explored+1) > e.cap*float64(e.total+1) {
		return false
	}
	in, n := e.inRing+1, e.filled+1
	if e.filled == len(e.ring) {
		n = e.filled
		if e.ring[e.next] {
			in-- // the oldest decision leaves the window
		}
	}
	return float64(in) <= e.cap*float64(n)
}

// Record counts one decision.
func (e *Explorer) Record(explored bool) {
	e.total++
	if explored {
		e.explored++
	}
	if e.filled == len(e.ring) {
		if e.ring[e.next] {
			e.inRing--
		}
	} else {
		e.filled++
	}
	e.ring[e.next] = explored
	if explored {
		e.inRing++
	}
	e.next = (e.next + 1) % len(e.ring)
}

// Total is the number of decisions recorded.
func (e *Explorer) Total() int64 { return e.total }

// Explored is the number of exploratory decisions recorded.
func (e *Explorer) Explored() int64 { return e.explored }

// Ratio is the share of exploratory decisions over all decisions (0 before any).
func (e *Explorer) Ratio() float64 {
	if e.total == 0 {
		return 0
	}
	return float64(e.explored) / float64(e.total)
}

// WindowRatio is the share of exploratory decisions over the last window.
func (e *Explorer) WindowRatio() float64 {
	if e.filled == 0 {
		return 0
	}
	return float64(e.inRing) / float64(e.filled)
}
