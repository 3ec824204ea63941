package scheduler

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// bk is a booking of user u for gpus GPUs from t0+from to t0+to.
func bk(id, u int64, gpus int, from, to time.Duration, opts ...func(*Booking)) Booking {
	b := Booking{ID: id, UserID: u, GPUCount: gpus, Start: at(from), End: at(to)}
	for _, o := range opts {
		o(&b)
	}
	return b
}

func named(gs ...int64) func(*Booking) {
	return func(b *Booking) { b.GPUIDs, b.GPUCount = gs, len(gs) }
}

func ofModel(m string) func(*Booking) { return func(b *Booking) { b.GPUModel = m } }

// Admission refuses what the cluster cannot hold beside the other
// bookings, says when and with whom it clashes, and sees the cluster whole.
func TestAdmitBookings(t *testing.T) {
	t.Parallel()
	h := time.Hour
	tests := map[string]struct {
		s    func() Snapshot
		ask  []Booking
		want []Refusal
	}{
		"fits beside": {
			s:   func() Snapshot { s := mk(1, 8); s.Bookings = []Booking{bk(1, 1, 6, 9*h, 17*h)}; return s },
			ask: []Booking{bk(2, 2, 2, 12*h, 20*h)},
		},
		"one GPU too many at 16:00": {
			s: func() Snapshot {
				s := mk(1, 8)
				s.Bookings = []Booking{bk(1, 1, 6, 9*h, 17*h), bk(2, 2, 2, 12*h, 20*h)}
				return s
			},
			ask:  []Booking{bk(3, 2, 1, 16*h, 18*h)},
			want: []Refusal{{BookingID: 3, Code: RefusedClash, Eligible: 8, At: at(16 * h), Rivals: []int64{1, 2}}},
		},
		"growing into a later booking names it": {
			s:    func() Snapshot { s := mk(1, 8); s.Bookings = []Booking{bk(2, 2, 4, 13*h, 17*h)}; return s },
			ask:  []Booking{bk(1, 1, 6, 9*h, 14*h)},
			want: []Refusal{{BookingID: 1, Code: RefusedClash, Eligible: 8, At: at(13 * h), Rivals: []int64{2}}},
		},
		"named GPUs clash with named GPUs": {
			s:    func() Snapshot { s := mk(1, 4); s.Bookings = []Booking{bk(1, 1, 0, 2*h, 3*h, named(10, 11))}; return s },
			ask:  []Booking{bk(2, 2, 0, 2*h, 3*h, named(11))},
			want: []Refusal{{BookingID: 2, Code: RefusedClash, Eligible: 1, At: at(2 * h), Rivals: []int64{1}}},
		},
		// Enough GPUs at every moment, but not the same GPU all along: GPU
		// 10 is booked until 2h, GPU 11 from 2h, and the ask spans 1h–3h.
		"no GPU free over the whole window": {
			s: func() Snapshot {
				s := mk(1, 2)
				s.Bookings = []Booking{bk(1, 1, 0, 0, 2*h, named(10)), bk(2, 1, 0, 2*h, 4*h, named(11))}
				return s
			},
			ask:  []Booking{bk(3, 2, 1, h, 3*h)},
			want: []Refusal{{BookingID: 3, Code: RefusedClash, Eligible: 2, At: at(h), Rivals: []int64{1, 2}}},
		},
		"more than the cluster has of a model": {
			s:    func() Snapshot { return mk(1, 4) },
			ask:  []Booking{bk(1, 1, 2, h, 2*h, ofModel("A100"))},
			want: []Refusal{{BookingID: 1, Code: RefusedTooFew}},
		},
		"a named GPU that is not there": {
			s:    func() Snapshot { return mk(1, 2) },
			ask:  []Booking{bk(1, 1, 0, h, 2*h, named(10, 99))},
			want: []Refusal{{BookingID: 1, Code: RefusedNoSuchGPU, Eligible: 1, Missing: []int64{99}}},
		},
		"a GPU down now still counts": {
			s: func() Snapshot {
				s := mk(1, 2)
				s.GPUs[0].Healthy, s.Nodes[0].Up = false, false
				s.Running = []Job{run(9, 3, h, 10*h, ids(11))}
				return s
			},
			ask: []Booking{bk(1, 1, 2, h, 2*h)},
		},
		"an ended booking takes nothing": {
			s:   func() Snapshot { s := mk(1, 2); s.Bookings = []Booking{bk(1, 1, 2, -2*h, -h)}; return s },
			ask: []Booking{bk(2, 2, 2, -h/2, h)},
		},
		"asked together, the later one clashes with the earlier": {
			s:    func() Snapshot { return mk(1, 2) },
			ask:  []Booking{bk(-1, 1, 2, h, 3*h), bk(-2, 2, 1, 2*h, 4*h)},
			want: []Refusal{{BookingID: -2, Code: RefusedClash, Eligible: 2, At: at(2 * h), Rivals: []int64{-1}}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := AdmitBookings(tc.s(), tc.ask)
			if diff := cmp.Diff(tc.want, got.Refused); diff != "" {
				t.Errorf("refused (-want +got):\n%s", diff)
			}
		})
	}
}

// drawCluster draws up to 3 up nodes of up to 4 GPUs, each node of model
// "A100" or "H100", NVLink groups as they come.
func drawCluster(t *rapid.T) Snapshot {
	s := Snapshot{Now: t0, Users: map[int64]Principal{}, Teams: map[int64]Principal{}}
	for n := range int64(rapid.IntRange(1, 3).Draw(t, "nodes")) {
		n++
		s.Nodes = append(s.Nodes, Node{ID: n, Up: true})
		m := rapid.SampledFrom([]string{"A100", "H100"}).Draw(t, "model")
		for i := range rapid.IntRange(1, 4).Draw(t, "per") {
			s.GPUs = append(s.GPUs, GPU{ID: n*10 + int64(i), NodeID: n, Index: i, Model: m, MemoryMiB: 81559,
				NVLinkGroup: rapid.IntRange(-1, 1).Draw(t, "nvl"), Healthy: true})
		}
	}
	return s
}

// drawBookings draws n bookings with IDs from first: any window from 2 h
// ago to 8 h ahead, 1–4 GPUs of any model, of a model, on a node, or named.
func drawBookings(t *rapid.T, s Snapshot, first int64, n int) []Booking {
	var out []Booking
	for i := range n {
		start := t0.Add(time.Duration(rapid.IntRange(-4, 16).Draw(t, "start")) * 30 * time.Minute)
		b := Booking{ID: first + int64(i), UserID: rapid.Int64Range(1, 3).Draw(t, "user"), GPUCount: rapid.IntRange(1, 4).Draw(t, "gpus"),
			Start: start, End: start.Add(time.Duration(rapid.IntRange(1, 8).Draw(t, "len")) * 30 * time.Minute)}
		switch rapid.IntRange(0, 4).Draw(t, "kind") {
		case 1:
			b.GPUModel = rapid.SampledFrom([]string{"a100", "H100"}).Draw(t, "bmodel")
		case 2:
			b.NodeID = rapid.SampledFrom(s.Nodes).Draw(t, "node").ID
		case 3:
			var gs []int64
			for _, g := range s.GPUs {
				gs = append(gs, g.ID)
			}
			b.GPUIDs = rapid.SliceOfNDistinct(rapid.SampledFrom(gs), 1, 2, rapid.ID).Draw(t, "named")
			b.GPUCount = len(b.GPUIDs)
		}
		out = append(out, b)
	}
	return out
}

// pinnedInFull reports whether the pass's pinning (no job running) gives
// every booking of s all its GPUs.
func pinnedInFull(s Snapshot) bool {
	p := indexPass(&s, DefaultConfig())
	p.pinBookings(&s)
	return p.unpinned() == 0
}

// Admission and pinning agree: bookings admitted one by one are pinned in
// full by the pass (also when jobs run and the pass prefers GPUs they free
// soon); and beside bookings pinned in full, a booking is admitted exactly
// when the pinning with it stays full. Asking for several at once decides
// as asking for them one by one.
func TestAdmissionAgreesWithPinning(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		s := drawCluster(t)
		asks := drawBookings(t, s, 1, rapid.IntRange(1, 10).Draw(t, "asks"))
		var admitted []Booking
		for _, b := range asks {
			c := s
			c.Bookings = admitted
			if len(AdmitBookings(c, []Booking{b}).Refused) == 0 {
				admitted = append(admitted, b)
			}
		}
		s.Bookings = admitted
		if !pinnedInFull(s) {
			t.Fatalf("admitted %v, not pinned in full", admitted)
		}
		together := AdmitBookings(Snapshot{Now: s.Now, Nodes: s.Nodes, GPUs: s.GPUs}, asks)
		var refused []int64
		for _, r := range together.Refused {
			refused = append(refused, r.BookingID)
		}
		var want []int64
		for _, b := range asks {
			if !slices.ContainsFunc(admitted, func(a Booking) bool { return a.ID == b.ID }) {
				want = append(want, b.ID)
			}
		}
		if !slices.Equal(want, refused) {
			t.Fatalf("asked together, refused %v; one by one %v", refused, want)
		}

		// Jobs running on any GPUs, ending any time: the pass still pins
		// every admitted booking in full.
		var gs []int64
		for _, g := range s.GPUs {
			gs = append(gs, g.ID)
		}
		held := rapid.SliceOfDistinct(rapid.SampledFrom(gs), rapid.ID).Draw(t, "held")
		for i, g := range held {
			s.Running = append(s.Running, Job{ID: int64(100 + i), UserID: rapid.Int64Range(1, 3).Draw(t, "ruser"), GPUCount: 1,
				GPUs: []int64{g}, StartedAt: t0.Add(-time.Hour), EstimatedDuration: time.Duration(rapid.IntRange(1, 20).Draw(t, "rlen")) * 30 * time.Minute})
		}
		p := newPass(&s, DefaultConfig())
		if n := p.unpinned(); n != 0 {
			t.Fatalf("with jobs running on %v, %d GPUs of admitted bookings %v unpinned", held, n, admitted)
		}
		for _, pin := range Schedule(s, DefaultConfig()).Pins {
			b := admitted[slices.IndexFunc(admitted, func(a Booking) bool { return a.ID == pin.BookingID })]
			if len(pin.GPUIDs) != b.GPUCount {
				t.Fatalf("plan pins %v for booking %+v", pin.GPUIDs, b)
			}
		}

		// Vice versa: beside bookings pinned in full, x is admitted exactly
		// when the pinning with it is full.
		s.Running = nil
		x := drawBookings(t, s, 1000, 1)[0]
		with := s
		with.Bookings = append(slices.Clone(s.Bookings), x)
		admittedX := len(AdmitBookings(s, []Booking{x}).Refused) == 0
		if full := pinnedInFull(with); admittedX != full {
			t.Fatalf("booking %+v beside %v: admitted %v, pinned in full %v", x, s.Bookings, admittedX, full)
		}
	})
}

// A refused clash names a moment inside its window and rivals whose windows
// hold that moment.
func TestRefusalNamesRivalsInForce(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		s := drawCluster(t)
		s.Bookings = drawBookings(t, s, 1, rapid.IntRange(0, 8).Draw(t, "bookings"))
		x := drawBookings(t, s, 1000, 1)[0]
		for _, r := range AdmitBookings(s, []Booking{x}).Refused {
			if r.Code != RefusedClash {
				continue
			}
			if r.At.Before(x.Start) || !r.At.Before(x.End) {
				t.Fatalf("clash at %v, outside %v–%v", r.At, x.Start, x.End)
			}
			for _, id := range r.Rivals {
				i := slices.IndexFunc(s.Bookings, func(b Booking) bool { return b.ID == id })
				if i < 0 || !s.Bookings[i].Start.Before(x.End) || !x.Start.Before(s.Bookings[i].End) {
					t.Fatalf("rival %d is not a booking of the window: %s", id, fmt.Sprint(s.Bookings))
				}
			}
		}
	})
}
