package lighthttp

import (
	"bufio"
	"bytes"
	"testing"
)

// FuzzReadResponse proves that readResponse, whatever bytes it reads, does
// not panic, returns an answer or an error but not both, and never returns
// a body over the cap it was given.
func FuzzReadResponse(f *testing.F) {
	seeds := []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\nX-T: 1\r\n\r\n",
		"HTTP/1.0 200 OK\r\n\r\nuntil the end",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n",
		"HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n7fffffffffffffff\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
		"HTTP/1.1 2x0 OK\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX-Broken\r\n\r\n",
		"",
	}
	for i, s := range seeds {
		f.Add([]byte(s), uint8(i%3), uint16(8))
	}
	f.Fuzz(func(t *testing.T, in []byte, m uint8, maxBody uint16) {
		method := [...]string{"GET", "HEAD", "CONNECT"}[m%3]
		resp, _, err := readResponse(bufio.NewReaderSize(bytes.NewReader(in), 16), method, int64(maxBody))
		if (resp == nil) == (err == nil) {
			t.Fatalf("answer %+v with error %v", resp, err)
		}
		if resp != nil && len(resp.Body) > int(maxBody) {
			t.Fatalf("body of %d bytes, over the cap of %d", len(resp.Body), maxBody)
		}
	})
}
