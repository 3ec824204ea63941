package netguard_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/netguard"
)

// Every non-public target is refused, however it is written: zoned,
// IPv4-mapped, NAT64, private, shared, unique-local, metadata; public ones
// pass; an allowed network opens exactly itself.
func TestCheckHost(t *testing.T) {
	t.Parallel()
	strict := netguard.Policy{}
	office := netguard.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("10.20.0.0/16"), netip.MustParsePrefix("fd12::/16")}}
	dev := netguard.Policy{AllowAll: true}
	tests := map[string]struct {
		policy netguard.Policy
		host   string
		ok     bool
	}{
		"zoned loopback v6":           {strict, "::1%lo", false},
		"zoned mapped loopback":       {strict, "::ffff:127.0.0.1%lo", false},
		"zoned even when all allowed": {dev, "::1%lo", false},
		"zoned link-local":            {dev, "fe80::1%eth0", false},
		"loopback v4":                 {strict, "127.0.0.1", false},
		"loopback v4 elsewhere":       {strict, "127.3.2.1", false},
		"loopback v6":                 {strict, "::1", false},
		"mapped loopback":             {strict, "::ffff:127.0.0.1", false},
		"mapped private":              {strict, "::ffff:10.1.2.3", false},
		"unspecified v4":              {strict, "0.0.0.0", false},
		"this network":                {strict, "0.1.2.3", false},
		"unspecified v6":              {strict, "::", false},
		"ten":                         {strict, "10.0.0.5", false},
		"172.16/12":                   {strict, "172.31.255.1", false},
		"192.168/16":                  {strict, "192.168.1.1", false},
		"CGNAT":                       {strict, "100.64.0.1", false},
		"alibaba metadata":            {strict, "100.100.100.200", false},
		"cloud metadata":              {strict, "169.254.169.254", false},
		"link-local v6":               {strict, "fe80::1", false},
		"ULA":                         {strict, "fd00::1", false},
		"aws v6 metadata":             {strict, "fd00:ec2::254", false},
		"fc00::/7 low half":           {strict, "fc00::1", false},
		"NAT64 of loopback":           {strict, "64:ff9b::7f00:1", false},
		"6to4 of loopback":            {strict, "2002:7f00:1::1", false},
		"multicast":                   {strict, "224.0.0.1", false},
		"broadcast":                   {strict, "255.255.255.255", false},
		"documentation":               {strict, "192.0.2.1", false},
		"localhost":                   {strict, "localhost", false},
		"localhost trailing dot":      {strict, "localhost.", false},
		"LOCALHOST trailing dot":      {strict, "LOCALHOST.", false},
		"under localhost":             {strict, "api.localhost.", false},
		"numeric short form":          {strict, "127.1", false},
		"decimal address":             {strict, "2130706433", false},
		"hex address":                 {strict, "0x7f000001", false},
		"empty":                       {strict, "", false},
		"lone dot":                    {strict, ".", false},
		"empty label":                 {strict, "a..example.com", false},
		"space":                       {strict, "a b.example.com", false},
		"public v4":                   {strict, "93.184.215.14", true},
		"public v6":                   {strict, "2606:2800:21f:cb07:6820:80da:af6b:8b2c", true},
		"mapped public":               {strict, "::ffff:93.184.215.14", true},
		"public name":                 {strict, "hooks.slack.com", true},
		"public name trailing dot":    {strict, "hooks.slack.com.", true},
		"allowed network":             {office, "10.20.3.4", true},
		"allowed v6 network":          {office, "fd12::9", true},
		"next to the allowed one":     {office, "10.21.0.1", false},
		"loopback, office policy":     {office, "127.0.0.1", false},
		"dev allows loopback":         {dev, "127.0.0.1", true},
		"dev allows localhost":        {dev, "localhost", true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := tc.policy.CheckHost(tc.host)
			if (err == nil) != tc.ok {
				t.Fatalf("CheckHost(%q) = %v, want allowed %v", tc.host, err, tc.ok)
			}
			if err != nil && !errors.Is(err, netguard.ErrRefused) {
				t.Fatalf("refusal %v does not wrap ErrRefused", err)
			}
		})
	}
}

// Control fails closed: what does not parse as ip:port is refused, as is
// a zoned address.
func TestControlFailsClosed(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"", "localhost:80", "[::1%lo]:80", "[fe80::1%25eth0]:443", "1.2.3.4", "93.184.215.14:x"} {
		if err := (netguard.Policy{AllowAll: true}).Control("tcp", addr, nil); !errors.Is(err, netguard.ErrRefused) {
			t.Errorf("Control(%q) = %v, want refused", addr, err)
		}
	}
	if err := (netguard.Policy{}).Control("tcp", "93.184.215.14:443", nil); err != nil {
		t.Errorf("a public address is refused: %v", err)
	}
}

// The guarded dialer refuses a loopback receiver however the URL names it:
// a name that resolves to it, the address, the zoned and the mapped forms;
// and a localhost name is refused before any lookup (a resolver that would
// be asked fails the test).
func TestDialContextRefusesLoopback(t *testing.T) {
	t.Parallel()
	hit := make(chan string, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { hit <- r.URL.Path }))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	d := &net.Dialer{Timeout: 2 * time.Second, Resolver: &net.Resolver{PreferGo: true,
		Dial: func(context.Context, string, string) (net.Conn, error) {
			t.Error("a resolver was asked")
			return nil, errors.New("no resolver in this test")
		}}}
	client := &http.Client{Transport: &http.Transport{DialContext: netguard.Policy{}.DialContext(d)}}
	for _, host := range []string{"127.0.0.1", "[::ffff:127.0.0.1]", "[::ffff:127.0.0.1%25lo]", "[::1%25lo]", "localhost", "localhost.", "x.localhost."} {
		u := "http://" + host + ":" + port + "/"
		if _, err := url.Parse(u); err != nil {
			t.Fatalf("test URL %s: %v", u, err)
		}
		resp, err := client.Get(u)
		if err == nil {
			resp.Body.Close()
			t.Errorf("GET %s reached the receiver", u)
			continue
		}
		if !errors.Is(err, netguard.ErrRefused) {
			t.Errorf("GET %s: %v, want a refusal", u, err)
		}
	}
	select {
	case p := <-hit:
		t.Fatalf("the loopback receiver was called (%s)", p)
	default:
	}
	// The same dialer with loopback allowed reaches it: the refusals above are the policy's.
	open := &http.Client{Transport: &http.Transport{DialContext: netguard.Policy{AllowAll: true}.DialContext(&net.Dialer{})}}
	resp, err := open.Get(srv.URL + "/ok")
	if err != nil {
		t.Fatalf("allowed dial: %v", err)
	}
	resp.Body.Close()
}
