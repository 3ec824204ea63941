package web_test

import (
	"crypto/hmac"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// received is one webhook delivery as a receiver saw it.
type received struct {
	Event, Delivery string
	SignatureOK     bool
	Payload         models.EventPayload
	// Raw is the body as a receiver without our types decodes it.
	Raw map[string]any
	At  time.Time
}

// webhookReceiver is a real HTTP receiver that checks each delivery's
// signature with secret (set once known) and answers with status(n) for the
// n-th request (from 1).
type webhookReceiver struct {
	*httptest.Server
	secret atomic.Value
	got    chan received
	calls  atomic.Int32
}

// newRecordingServer answers 200 and sends each delivery's event and arrival time to got.
func newRecordingServer(got chan received) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
		got <- received{Event: req.Header.Get("X-GPUSched-Event"), Delivery: req.Header.Get("X-GPUSched-Delivery"), At: time.Now()}
	}))
}

func newWebhookReceiver(t *testing.T, status func(n int32) int) *webhookReceiver {
	r := &webhookReceiver{got: make(chan received, 64)}
	r.secret.Store("")
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		n := r.calls.Add(1)
		body, _ := io.ReadAll(req.Body)
		if code := status(n); code != 200 {
			w.WriteHeader(code)
			return
		}
		want := jobs.WebhookSignature(r.secret.Load().(string), body)
		rec := received{Event: req.Header.Get("X-GPUSched-Event"), Delivery: req.Header.Get("X-GPUSched-Delivery"),
			SignatureOK: hmac.Equal([]byte(want), []byte(req.Header.Get("X-GPUSched-Signature"))), At: time.Now()}
		if err := json.Unmarshal(body, &rec.Payload); err != nil {
			t.Errorf("webhook body is not JSON: %s", body)
		}
		_ = json.Unmarshal(body, &rec.Raw)
		r.got <- rec
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *webhookReceiver) next(t *testing.T, event string, within time.Duration) received {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case rec := <-r.got:
			if rec.Event == event {
				return rec
			}
		case <-deadline:
			t.Fatalf("no %s delivered within %s", event, within)
		}
	}
}

func addChannel(t *testing.T, s *testserver.Server, tok, body string) handlers.ChannelJSON {
	t.Helper()
	st, b := s.Do(t, "POST", "/api/v1/notifications/channels", tok, body)
	if st != http.StatusCreated {
		t.Fatalf("add channel: %d %s", st, b)
	}
	var ch handlers.ChannelJSON
	mustJSON(t, b, &ch)
	return ch
}

// The acceptance path: a webhook channel registered, a lease granted and
// released, and a signed job.finished arrives within 2 s of the end.
func TestNotifyWebhookJobFinished(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	tok, _ := s.UserToken(t, models.RoleMember)
	recv := newWebhookReceiver(t, func(int32) int { return 200 })
	ch := addChannel(t, s, tok, `{"type":"webhook","url":"`+recv.URL+`/hook"}`)
	if len(ch.Secret) < 16 {
		t.Fatalf("a webhook channel gets a generated secret, shown once: %+v", ch)
	}
	recv.secret.Store(ch.Secret)
	_, list := s.Do(t, "GET", "/api/v1/notifications/channels", tok, "")
	if strings.Contains(string(list), ch.Secret) {
		t.Fatalf("the secret is shown again: %s", list)
	}
	var stored string
	if err := s.DB.Bun.NewRaw("SELECT secret FROM notification_channels WHERE id = ?", ch.ID).Scan(t.Context(), &stored); err != nil ||
		strings.Contains(stored, ch.Secret) || !strings.HasPrefix(stored, "sealed:v1:") {
		t.Fatalf("the secret is stored in clear or not at all: %q (%v)", stored, err)
	}

	if st, b := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", tok, `{"job_id":"train-7","gpu_count":2,"timeout_s":20}`); st != 200 {
		t.Fatalf("allocate: %d %s", st, b)
	}
	ended := time.Now()
	if st, b := s.Do(t, "POST", "/api/v1/cluster/gpu-release", tok, `{"job_id":"train-7"}`); st != 200 {
		t.Fatalf("release: %d %s", st, b)
	}
	rec := recv.next(t, models.EventJobFinished, 2*time.Second)
	if !rec.SignatureOK {
		t.Fatal("signature does not verify with the channel's secret")
	}
	if rec.Delivery == "" || rec.Payload.Job == nil || rec.Payload.Job.State != "completed" || len(rec.Payload.Job.GPUs) != 2 ||
		rec.Payload.Event != models.EventJobFinished {
		t.Fatalf("payload %+v", rec.Payload)
	}
	// The page is derived when the message is sent: receivers still get
	// "path" and "url" (the server's base URL, empty here, and the path).
	if page := fmt.Sprintf("/jobs/%d", rec.Payload.Job.ID); rec.Raw["path"] != page || rec.Raw["url"] != page {
		t.Fatalf("path %v and url %v, want %s", rec.Raw["path"], rec.Raw["url"], page)
	}
	t.Logf("job.finished delivered %s after the release", rec.At.Sub(ended))

	// The in-app copy is there too, unread.
	_, b := s.Do(t, "GET", "/api/v1/notifications", tok, "")
	var inbox handlers.NotificationsJSON
	mustJSON(t, b, &inbox)
	if inbox.Unread != 1 || len(inbox.Notifications) != 1 || inbox.Notifications[0].Event != models.EventJobFinished {
		t.Fatalf("in-app %s", b)
	}
	if st, b := s.Do(t, "POST", "/api/v1/notifications/read", tok, `{}`); st != 200 || !contains(b, `"marked":1`) {
		t.Fatalf("mark read: %d %s", st, b)
	}
}

// 5xx is retried with backoff until it succeeds; a 4xx is dead at once,
// with the reason the user can read.
func TestNotifyWebhookRetryAndDead(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok, _ := s.UserToken(t, models.RoleMember)
	flaky := newWebhookReceiver(t, func(n int32) int {
		if n <= 2 {
			return 503
		}
		return 200
	})
	ch := addChannel(t, s, tok, `{"type":"webhook","url":"`+flaky.URL+`","secret":"s3cret-value"}`)
	flaky.secret.Store("s3cret-value")
	if st, b := s.Do(t, "POST", "/api/v1/notifications/channels/"+strconv.FormatInt(ch.ID, 10)+"/test", tok, ""); st != 202 {
		t.Fatalf("test: %d %s", st, b)
	}
	rec := flaky.next(t, models.EventTest, 10*time.Second)
	if !rec.SignatureOK || flaky.calls.Load() != 3 {
		t.Fatalf("after retries: signature %v, calls %d", rec.SignatureOK, flaky.calls.Load())
	}

	gone := newWebhookReceiver(t, func(int32) int { return 410 })
	ch2 := addChannel(t, s, tok, `{"type":"webhook","url":"`+gone.URL+`"}`)
	s.Do(t, "POST", "/api/v1/notifications/channels/"+strconv.FormatInt(ch2.ID, 10)+"/test", tok, "")
	var dead []byte
	if !eventually(10*time.Second, func() bool {
		_, dead = s.Do(t, "GET", "/api/v1/notifications/deliveries?state=dead", tok, "")
		return contains(dead, "410 Gone")
	}) {
		t.Fatalf("no dead delivery: %s", dead)
	}
	if contains(dead, "s3cret") {
		t.Fatalf("a secret leaked into deliveries: %s", dead)
	}
	if gone.calls.Load() != 1 {
		t.Fatalf("a 4xx was retried: %d calls", gone.calls.Load())
	}
}

// Bad channels are refused naming the field.
func TestNotifyChannelValidation(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok, _ := s.UserToken(t, models.RoleMember)
	for _, tc := range []struct{ body, field string }{
		{`{"type":"pager","url":"https://x.example"}`, "type"},
		{`{"type":"webhook","url":"ftp://x.example"}`, "url"},
		{`{"type":"email","address":"not an address"}`, "address"},
		{`{"type":"slack","url":"https://hooks.example/T/B/x","secret":"k"}`, "secret"},
	} {
		st, b := s.Do(t, "POST", "/api/v1/notifications/channels", tok, tc.body)
		if msg, _ := testserver.APIError(t, b); st != 400 || !strings.HasPrefix(msg, tc.field+":") {
			t.Errorf("%s: %d %s", tc.body, st, b)
		}
	}
}

// A channel's rate limit makes later deliveries wait instead of sending.
func TestNotifyRateLimit(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok, _ := s.UserToken(t, models.RoleMember)
	recv := newWebhookReceiver(t, func(int32) int { return 200 })
	ch := addChannel(t, s, tok, `{"type":"webhook","url":"`+recv.URL+`","rate_per_minute":1}`)
	recv.secret.Store(ch.Secret)
	for range 2 {
		if st, b := s.Do(t, "POST", "/api/v1/notifications/channels/"+strconv.FormatInt(ch.ID, 10)+"/test", tok, ""); st != 202 {
			t.Fatalf("test: %d %s", st, b)
		}
	}
	recv.next(t, models.EventTest, 5*time.Second)
	// The other delivery's job ran and was put off (River snoozed it), or
	// it was sent.
	waitFor(t, "the second delivery's attempt", func() bool {
		n, err := s.DB.Bun.NewSelect().Table("river_job").Where("kind = ? AND state = 'scheduled'", models.NotifyDeliverArgs{}.Kind()).
			Count(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return n > 0 || recv.calls.Load() > 1
	})
	if n := recv.calls.Load(); n != 1 {
		t.Fatalf("%d deliveries within the minute, want 1", n)
	}
	_, b := s.Do(t, "GET", "/api/v1/notifications/deliveries?state=pending", tok, "")
	if !contains(b, `"state":"pending"`) {
		t.Fatalf("the second delivery should wait: %s", b)
	}
}
