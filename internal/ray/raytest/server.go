// Package raytest is a Ray Jobs REST API server for tests and local trials,
// since no Ray cluster runs here. It follows Ray's documented behaviour: a
// submitted job is PENDING, then RUNNING, then SUCCEEDED or FAILED (or
// STOPPED when asked) as its clock moves; unknown ids answer 404 with Ray's
// sentence; a submission_id it already has is refused with 400 as Ray does;
// stopping a finished job answers {"stopped": false}; logs grow while a job
// runs; POST /api/jobs/ and GET /api/jobs/ keep their trailing slash. It
// records every request, can play a cluster that is down or answers 503,
// can be slow to carry out stops (a hung job), and can forget every job, as
// a restarted head does.
package raytest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/ray"
)

// Request is one request the server received.
type Request struct {
	Method string
	Path   string
	Body   string
}

// Server is the fake Ray head's Jobs API. Serve it with httptest.NewServer
// or http.Serve. The zero value is not usable: call New.
type Server struct {
	// Now is the server's clock (tests move it by hand).
	Now func() time.Time
	// PendingFor and RunFor are how long a job stays PENDING, then RUNNING.
	PendingFor, RunFor time.Duration
	// LogEvery is how often a running job writes a line (0: RunFor/4).
	LogEvery time.Duration

	mu       sync.Mutex
	jobs     map[string]*job
	requests []Request
	down     bool
	failNext []int // statuses to answer the next requests with
	loseNext int   // requests to carry out and then leave unanswered
	holdStop bool  // stops are answered but not carried out yet
	seq      int
}

type job struct {
	req       ray.SubmitRequest
	submitted time.Time
	stoppedAt time.Time // zero unless stopped
	stopHeld  bool      // asked to stop while stops were held
}

// New returns a server with the given clock, PENDING for 1s and RUNNING for 3s.
func New(now func() time.Time) *Server {
	return &Server{Now: now, PendingFor: time.Second, RunFor: 3 * time.Second, jobs: map[string]*job{}}
}

// SetDown makes the server drop every connection unanswered (a head that is
// down or unreachable) until SetDown(false).
func (s *Server) SetDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
}

// FailNext answers the next len(statuses) requests with those statuses.
func (s *Server) FailNext(statuses ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failNext = append(s.failNext, statuses...)
}

// LoseNextAnswers carries out the next n requests but drops their
// connections before answering: a submission that got through while its
// answer was lost.
func (s *Server) LoseNextAnswers(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loseNext += n
}

// HoldStops makes the server answer a stop of a job that has not ended
// {"stopped": true}, as Ray does once it has sent the stop, while the job
// goes on as if nothing had been asked (a hung job, a busy head). The
// requests are recorded as usual. HoldStops(false) carries out the stops
// held so far, at the server's time then.
func (s *Server) HoldStops(hold bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.holdStop = hold
	if hold {
		return
	}
	for _, j := range s.jobs {
		if j.stopHeld {
			j.stopHeld = false
			if status, _ := s.status(j); !ray.IsTerminal(status) {
				j.stoppedAt = s.Now()
			}
		}
	}
}

// Forget drops every job and its logs, as a head restarted without
// persistence does (ray#25879).
func (s *Server) Forget() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.jobs = map[string]*job{}
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Submissions returns the bodies of every submission Ray accepted, by submission id.
func (s *Server) Submissions() map[string]ray.SubmitRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]ray.SubmitRequest{}
	for id, j := range s.jobs {
		out[id] = j.req
	}
	return out
}

// ServeHTTP implements http.Handler with Ray's routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body strings.Builder
	if r.Body != nil {
		buf := make([]byte, 1<<16)
		for {
			n, err := r.Body.Read(buf)
			body.Write(buf[:n])
			if err != nil {
				break
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Body: body.String()})
	if s.down {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
		http.Error(w, "head down", http.StatusBadGateway)
		return
	}
	if len(s.failNext) > 0 {
		code := s.failNext[0]
		s.failNext = s.failNext[1:]
		http.Error(w, http.StatusText(code), code)
		return
	}
	if s.loseNext > 0 {
		s.loseNext--
		s.route(httptest.NewRecorder(), r, body.String())
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
	}
	s.route(w, r, body.String())
}

func (s *Server) route(w http.ResponseWriter, r *http.Request, body string) {
	p := r.URL.Path
	switch {
	case p == "/api/version" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, ray.Version{Version: "2", RayVersion: "2.40.0-fake", RayCommit: "fake"})
	case p == "/api/jobs/" && r.Method == http.MethodPost:
		s.submit(w, body)
	case p == "/api/jobs/" && r.Method == http.MethodGet:
		ids := make([]string, 0, len(s.jobs))
		for id := range s.jobs {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		out := make([]ray.JobDetails, len(ids))
		for i, id := range ids {
			out[i] = s.details(id)
		}
		writeJSON(w, http.StatusOK, out)
	case strings.HasPrefix(p, "/api/jobs/") && p != "/api/jobs/":
		s.one(w, r, strings.TrimPrefix(p, "/api/jobs/"))
	default:
		http.Error(w, "404: Not Found", http.StatusNotFound) // aiohttp's answer, trailing slash missing included
	}
}

func (s *Server) submit(w http.ResponseWriter, body string) {
	var req ray.SubmitRequest
	if err := json.Unmarshal([]byte(body), &req); err != nil || req.Entrypoint == "" {
		http.Error(w, "Traceback (most recent call last):\nTypeError: JobSubmitRequest.__init__() missing 1 required positional argument: 'entrypoint'", http.StatusBadRequest)
		return
	}
	if req.SubmissionID == "" {
		s.seq++
		req.SubmissionID = fmt.Sprintf("raysubmit_%06d", s.seq)
	}
	if _, ok := s.jobs[req.SubmissionID]; ok {
		http.Error(w, fmt.Sprintf("Traceback (most recent call last):\nValueError: Job with submission_id %s already exists. Please use a different submission_id.", req.SubmissionID), http.StatusBadRequest)
		return
	}
	for k := range req.EntrypointResources {
		if k == "" || strings.Contains(k, " ") {
			http.Error(w, fmt.Sprintf("Traceback (most recent call last):\nValueError: invalid resource name %q", k), http.StatusBadRequest)
			return
		}
	}
	s.jobs[req.SubmissionID] = &job{req: req, submitted: s.Now()}
	writeJSON(w, http.StatusOK, map[string]string{"job_id": req.SubmissionID, "submission_id": req.SubmissionID})
}

func (s *Server) one(w http.ResponseWriter, r *http.Request, rest string) {
	id, action, _ := strings.Cut(rest, "/")
	j, ok := s.jobs[id]
	if !ok {
		http.Error(w, fmt.Sprintf("Job %s does not exist", id), http.StatusNotFound)
		return
	}
	switch {
	case action == "" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, s.details(id))
	case action == "logs" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, map[string]string{"logs": s.logs(j)})
	case action == "stop" && r.Method == http.MethodPost:
		status, _ := s.status(j)
		if ray.IsTerminal(status) {
			writeJSON(w, http.StatusOK, map[string]bool{"stopped": false})
			return
		}
		if s.holdStop {
			j.stopHeld = true
		} else {
			j.stoppedAt = s.Now()
		}
		writeJSON(w, http.StatusOK, map[string]bool{"stopped": true})
	case action == "" && r.Method == http.MethodDelete:
		if status, _ := s.status(j); !ray.IsTerminal(status) {
			http.Error(w, fmt.Sprintf("Attempted to delete job with submission_id %s, but it is in a non-terminal state %s.", id, status), http.StatusBadRequest)
			return
		}
		delete(s.jobs, id)
		writeJSON(w, http.StatusOK, map[string]bool{"deleted": true})
	default:
		http.Error(w, "405: Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
