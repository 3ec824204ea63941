package web_test

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/web"
)

// wsConn is a minimal WebSocket client (text frames, masked): enough to
// time round trips to the tests' echo server.
type wsConn struct {
	c net.Conn
	r *bufio.Reader
}

// dialWS opens a WebSocket to path on host, with cookie (may be "").
func dialWS(host, path, cookie string) (*wsConn, error) {
	c, err := net.Dial("tcp", host)
	if err != nil {
		return nil, err
	}
	key := make([]byte, 16)
	_, _ = rand.Read(key)
	req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: %s\r\n",
		path, host, base64.StdEncoding.EncodeToString(key))
	if cookie != "" {
		req += "Cookie: " + cookie + "\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		return nil, err
	}
	r := bufio.NewReader(c)
	status, err := r.ReadString('\n')
	if err != nil || !strings.Contains(status, " 101 ") {
		c.Close()
		return nil, fmt.Errorf("websocket %s: %q %v", path, status, err)
	}
	for {
		l, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		if l == "\r\n" {
			return &wsConn{c: c, r: r}, nil
		}
	}
}

// roundTrip sends msg and waits for its echo; it returns the time taken.
func (w *wsConn) roundTrip(msg []byte) (time.Duration, error) {
	frame := []byte{0x81, 0x80 | byte(len(msg)), 7, 11, 13, 17}
	for i, b := range msg {
		frame = append(frame, b^frame[2+i%4])
	}
	start := time.Now()
	if _, err := w.c.Write(frame); err != nil {
		return 0, err
	}
	head := make([]byte, 2)
	if _, err := io.ReadFull(w.r, head); err != nil {
		return 0, err
	}
	n := int(head[1] & 0x7F)
	if n == 126 {
		var ext [2]byte
		if _, err := io.ReadFull(w.r, ext[:]); err != nil {
			return 0, err
		}
		n = int(binary.BigEndian.Uint16(ext[:]))
	}
	if _, err := io.CopyN(io.Discard, w.r, int64(n)); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

var listening = regexp.MustCompile(`listening on (127\.0\.0\.1:\d+)`)

// BenchmarkSessionProxyWebSocket: 50 "web" sessions at once, each with a
// WebSocket through the control plane's proxy (and the node agent's
// listener) and one straight to its server; every iteration, all 50 send
// a message at once through the proxy, then all 50 straight. It reports
// the p99 round trip of each and the p99 the proxy adds.
//
//	go test -run '^$' -bench BenchmarkSessionProxyWebSocket -benchtime 200x ./web/
func BenchmarkSessionProxyWebSocket(b *testing.B) {
	const sessions = 50
	s := testserver.New(b)
	_, _ = s.UserToken(b, models.RoleAdmin)
	for i := range 4 {
		startSessionNode(b, s, fmt.Sprintf("bench-%d", i), "1x16:H100-80GB")
	}
	tok, owner := sessionMember(b, s)
	ids := make([]int64, sessions)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() { ids[i], _ = startWebSession(b, s, tok) })
	}
	wg.Wait()
	page := s.Login(b, owner.Email)
	u, _ := url.Parse(s.URL)
	var cookie string
	for _, c := range page.Jar.Cookies(u) {
		if c.Name == web.SessionCookie {
			cookie = c.Name + "=" + c.Value
		}
	}
	proxied := make([]*wsConn, sessions)
	direct := make([]*wsConn, sessions)
	for i, id := range ids {
		var addr string
		waitFor(b, "the server's address in its output", func() bool {
			_, out := s.Do(b, "GET", fmt.Sprintf("/api/v1/jobs/%d/logs", id), tok, "")
			var l struct{ Data string }
			_ = json.Unmarshal(out, &l)
			m := listening.FindStringSubmatch(l.Data)
			if m != nil {
				addr = m[1]
			}
			return m != nil
		})
		var err error
		if proxied[i], err = dialWS(u.Host, fmt.Sprintf("/s/%d/ws", id), cookie); err != nil {
			b.Fatal(err)
		}
		if direct[i], err = dialWS(addr, "/ws", ""); err != nil {
			b.Fatal(err)
		}
	}
	msg := []byte("ping through the proxy")
	var mu sync.Mutex
	var viaProxy, straight []time.Duration
	b.ResetTimer()
	for range b.N {
		// The proxied sockets all at once, then the direct ones: the two
		// do not compete for the CPU with each other.
		for _, way := range []struct {
			conns []*wsConn
			out   *[]time.Duration
		}{{proxied, &viaProxy}, {direct, &straight}} {
			var round sync.WaitGroup
			for _, c := range way.conns {
				round.Go(func() {
					d, err := c.roundTrip(msg)
					if err != nil {
						b.Error(err)
						return
					}
					mu.Lock()
					*way.out = append(*way.out, d)
					mu.Unlock()
				})
			}
			round.Wait()
		}
	}
	b.StopTimer()
	p99 := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)*99/100]) / float64(time.Millisecond)
	}
	pp, pd := p99(viaProxy), p99(straight)
	b.ReportMetric(pp, "p99-proxied-ms")
	b.ReportMetric(pd, "p99-direct-ms")
	b.ReportMetric(pp-pd, "p99-added-ms")
}
