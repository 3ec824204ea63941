package jobs

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/netguard"
)

// A receiver on loopback is never reached through a channel address that
// names it in a form the old checks missed (zoned, mapped, trailing-dot
// localhost), nor directly: each is a permanent failure, and the receiver
// sees nothing. An allowed network opens it.
func TestSenderRefusesNonPublicTargets(t *testing.T) {
	t.Parallel()
	hits := make(chan string, 16)
	recv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { hits <- r.Host }))
	t.Cleanup(recv.Close)
	_, port, _ := net.SplitHostPort(recv.Listener.Addr().String())
	strict := newSender(NotifyConfig{Timeout: 2 * time.Second})
	for _, target := range []string{
		"http://[::ffff:127.0.0.1%25lo]:" + port + "/",
		"http://[::ffff:127.0.0.1]:" + port + "/",
		"http://127.0.0.1:" + port + "/",
		"http://localhost.:" + port + "/",
		"http://127.1:" + port + "/",
	} {
		err := strict.post(t.Context(), target, []byte(`{}`), nil)
		var perm permanentError
		if !errors.As(err, &perm) || !errors.Is(err, netguard.ErrRefused) {
			t.Errorf("%s: %v, want a permanent refusal", target, err)
		}
	}
	select {
	case h := <-hits:
		t.Fatalf("the loopback receiver was reached (Host %s)", h)
	default:
	}
	office := newSender(NotifyConfig{Timeout: 2 * time.Second, AllowNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	if err := office.post(t.Context(), recv.URL, []byte(`{}`), nil); err != nil {
		t.Fatalf("an allowed network: %v", err)
	}
}

// What a member reads of a failed delivery says nothing about the network
// behind the address: a refused address, a closed port and a silent one
// give the same sentence, with no socket error in it.
func TestSenderErrorsAreGeneric(t *testing.T) {
	t.Parallel()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()
	silent, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { silent.Close() })
	go func() {
		var held []net.Conn
		for {
			c, err := silent.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	open := newSender(NotifyConfig{AllowPrivateTargets: true, Timeout: 300 * time.Millisecond})
	strict := newSender(NotifyConfig{Timeout: 300 * time.Millisecond})
	cases := map[string]error{
		"closed port": open.post(t.Context(), "http://"+closedAddr+"/", []byte(`{}`), nil),
		"silent port": open.post(t.Context(), "http://"+silent.Addr().String()+"/", []byte(`{}`), nil),
		"refused":     strict.post(t.Context(), "http://"+silent.Addr().String()+"/", []byte(`{}`), nil),
	}
	seen := map[string]bool{}
	for name, err := range cases {
		if err == nil {
			t.Fatalf("%s: delivered", name)
		}
		msg := strings.ReplaceAll(strings.ReplaceAll(err.Error(), closedAddr, "HOST"), silent.Addr().String(), "HOST")
		for _, leak := range []string{"refused", "dial", "timeout", "deadline", "i/o", "connect:", "EOF", "reset"} {
			if strings.Contains(msg, leak) {
				t.Errorf("%s: %q tells %q", name, err, leak)
			}
		}
		seen[msg] = true
	}
	if len(seen) != 1 {
		t.Errorf("the failures read differently: %v", seen)
	}
	if c := Cause(cases["closed port"]); c == nil || !strings.Contains(c.Error(), "refused") {
		t.Errorf("the log's cause of a closed port: %v", c)
	}
}
