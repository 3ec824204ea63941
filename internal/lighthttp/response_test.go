package lighthttp

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
)

// TestMalformedAnswers proves that an answer that breaks HTTP/1.1's
// grammar or ends early is an error naming the fault, never a panic or a
// partial answer taken as whole.
func TestMalformedAnswers(t *testing.T) {
	t.Parallel()
	const ok = "HTTP/1.1 200 OK\r\n"
	tests := map[string]struct {
		answer, wantMsg string
	}{
		"nothing":                   {"", "read answer: EOF"},
		"bad status line":           {"HTTP/1.1200 OK\r\n\r\n", "malformed status line"},
		"not HTTP":                  {"SSH-2.0-OpenSSH_9.6\r\n\r\n", "malformed status line"},
		"HTTP/2":                    {"HTTP/2 200 OK\r\n\r\n", "malformed status line"},
		"short code":                {"HTTP/1.1 20\r\n\r\n", "malformed status line"},
		"code runs on":              {"HTTP/1.1 2000 OK\r\n\r\n", "malformed status line"},
		"non-numeric code":          {"HTTP/1.1 2x0 OK\r\n\r\n", "malformed status code"},
		"signed code":               {"HTTP/1.1 +20 OK\r\n\r\n", "malformed status code"},
		"code under 100":            {"HTTP/1.1 099 Odd\r\n\r\n", "malformed status code"},
		"header line without colon": {ok + "X-Broken\r\n\r\n", `malformed header line "X-Broken"`},
		"space before colon":        {ok + "X-Broken : 1\r\n\r\n", "malformed header line"},
		"folded header line":        {ok + "X-A: 1\r\n  2\r\n\r\n", "malformed header line"},
		"head cut short":            {ok + "Content-Length: 2\r\n", "read answer header: EOF"},
		"invalid Content-Length":    {ok + "Content-Length: two\r\n\r\nok", `invalid Content-Length "two"`},
		"negative Content-Length":   {ok + "Content-Length: -1\r\n\r\n", `invalid Content-Length "-1"`},
		"truncated body":            {ok + "Content-Length: 10\r\n\r\nhello", "read answer body: unexpected EOF"},
		"bad chunk size":            {ok + "Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", `malformed chunk size "zz"`},
		"negative chunk size":       {ok + "Transfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n", "malformed chunk size"},
		"chunk size overflows cap":  {ok + "Transfer-Encoding: chunked\r\n\r\n1\r\na\r\n7fffffffffffffff\r\n", "answer body too large"},
		"chunk without CRLF":        {ok + "Transfer-Encoding: chunked\r\n\r\n2\r\nokay\r\n0\r\n\r\n", "chunk not followed by CRLF"},
		"truncated chunk":           {ok + "Transfer-Encoding: chunked\r\n\r\n5\r\nhel", "read chunk: unexpected EOF"},
		"no last chunk":             {ok + "Transfer-Encoding: chunked\r\n\r\n2\r\nok\r\n", "read chunk size: EOF"},
		"unsupported coding":        {ok + "Transfer-Encoding: gzip\r\n\r\nxx", "unsupported Transfer-Encoding"},
		"line over the limit":       {ok + "X-Long: " + strings.Repeat("a", maxLine) + "\r\n\r\n", "line over"},
		"too many fields":           {ok + strings.Repeat("X-A: 1\r\n", maxHeaders+1) + "\r\n", "answer header has over 200 fields"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			addr, _ := rawServer(t, func(c net.Conn, br *bufio.Reader) {
				if _, _, err := readRequest(br); err == nil {
					_, _ = io.WriteString(c, tt.answer)
				}
			})
			resp, err := get(t, &Client{}, "http://"+addr+"/")
			if err == nil {
				t.Fatalf("no error; answer %+v", resp)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q, want one holding %q", err, tt.wantMsg)
			}
		})
	}
}

// TestAnswerLeniency proves the forms a well-meaning server may send that
// are read as meant: bare LF line ends, a chunk extension, a trailer, a
// status line without a reason, and field names in any case.
func TestAnswerLeniency(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in, wantStatus, wantBody string
	}{
		"bare LF":         {"HTTP/1.1 200 OK\nContent-Length: 2\n\nok", "200 OK", "ok"},
		"chunk extension": {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;name=v\r\nok\r\n0\r\n\r\n", "200 OK", "ok"},
		"trailer":         {"HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n2\r\nok\r\n0\r\nX-Sum: 1\r\n\r\n", "200 OK", "ok"},
		"no reason":       {"HTTP/1.1 404\r\ncontent-length: 0\r\n\r\n", "404", ""},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			resp, _, err := readResponse(bufio.NewReader(strings.NewReader(tt.in)), "GET", 100)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != tt.wantStatus || string(resp.Body) != tt.wantBody {
				t.Errorf("got %q %q, want %q %q", resp.Status, resp.Body, tt.wantStatus, tt.wantBody)
			}
		})
	}
}
