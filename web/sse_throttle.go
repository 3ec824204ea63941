package web

import "time"

// throttle decides when one stream sends each topic: the first change of a
// burst goes at once (leading edge), later changes within interval are
// folded into one trailing send at the interval's end, so a topic is sent
// at most once per interval and the last change of a burst is never lost.
// It is owned by one stream's goroutine and is not safe for concurrent use.
type throttle struct {
	interval time.Duration
	last     map[string]time.Time // when each topic was last sent
	pending  map[string]string    // payload of a folded change, per topic
}

func newThrottle(interval time.Duration) *throttle {
	return &throttle{interval: interval, last: map[string]time.Time{}, pending: map[string]string{}}
}

// offer records a change of topic at now and reports whether it is to be
// sent now; when not, it waits in pending for flush.
func (t *throttle) offer(topic, payload string, now time.Time) bool {
	if _, waiting := t.pending[topic]; !waiting {
		if last, ok := t.last[topic]; !ok || now.Sub(last) >= t.interval {
			t.last[topic] = now
			return true
		}
	}
	t.pending[topic] = payload
	return false
}

// due removes and returns the folded changes whose interval has passed at
// now, keyed by topic.
func (t *throttle) due(now time.Time) map[string]string {
	var out map[string]string
	for topic, p := range t.pending {
		if now.Sub(t.last[topic]) < t.interval {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[topic] = p
		t.last[topic] = now
		delete(t.pending, topic)
	}
	return out
}

// next is how long from now until the earliest folded change falls due;
// ok is false when none waits.
func (t *throttle) next(now time.Time) (wait time.Duration, ok bool) {
	for topic := range t.pending {
		w := max(t.last[topic].Add(t.interval).Sub(now), 0)
		if !ok || w < wait {
			wait, ok = w, true
		}
	}
	return wait, ok
}
