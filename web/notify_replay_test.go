package web_test

import (
	"crypto/hmac"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// A webhook delivery carries its time and id, and its signature covers the
// time with the body: a receiver that checks the signature, the age (5
// minutes) and the id it saw refuses a captured delivery replayed later.
// The body-only signature stays one more release.
func TestWebhookSignatureCoversTimestamp(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok, _ := s.UserToken(t, models.RoleMember)
	type delivery struct {
		header http.Header
		body   []byte
	}
	got := make(chan delivery, 4)
	recv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- delivery{r.Header.Clone(), b}
	}))
	t.Cleanup(recv.Close)
	ch := addChannel(t, s, tok, `{"type":"webhook","url":"`+recv.URL+`","secret":"replay-secret"}`)
	if st, b := s.Do(t, "POST", "/api/v1/notifications/channels/"+strconv.FormatInt(ch.ID, 10)+"/test", tok, ""); st != http.StatusAccepted {
		t.Fatalf("test: %d %s", st, b)
	}
	var d delivery
	select {
	case d = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("no delivery")
	}
	ts, err := strconv.ParseInt(d.header.Get(jobs.HeaderTimestamp), 10, 64)
	if err != nil || time.Since(time.Unix(ts, 0)).Abs() > time.Minute {
		t.Fatalf("%s: %q, want the Unix time of the attempt (%v)", jobs.HeaderTimestamp, d.header.Get(jobs.HeaderTimestamp), err)
	}
	if d.header.Get(jobs.HeaderDelivery) == "" {
		t.Fatalf("no %s header", jobs.HeaderDelivery)
	}
	sig := d.header.Get(jobs.HeaderSignatureV2)
	if !hmac.Equal([]byte(sig), []byte(jobs.WebhookSignatureV2("replay-secret", ts, d.body))) {
		t.Fatalf("%s %q does not sign timestamp.body", jobs.HeaderSignatureV2, sig)
	}
	// The same body under a fresh timestamp (a replay) does not verify.
	if hmac.Equal([]byte(sig), []byte(jobs.WebhookSignatureV2("replay-secret", ts+600, d.body))) {
		t.Fatal("the signature does not depend on the timestamp")
	}
	if !hmac.Equal([]byte(d.header.Get(jobs.HeaderSignature)), []byte(jobs.WebhookSignature("replay-secret", d.body))) {
		t.Fatalf("the body-only signature is gone a release early: %q", d.header.Get(jobs.HeaderSignature))
	}
}
