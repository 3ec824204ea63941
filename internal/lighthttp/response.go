package lighthttp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Limits on an answer's head.
const (
	maxLine    = 64 << 10
	maxHeaders = 200
)

// errTooLarge is an answer body over the client's cap.
var errTooLarge = errors.New("answer body too large")

// readResponse reads one answer to a request of method, skipping interim
// 1xx answers. reusable reports whether the connection may carry another
// request: the body had a length or was chunked and neither side asked to
// close.
func readResponse(br *bufio.Reader, method string, maxBody int64) (*Response, bool, error) {
	var resp *Response
	var proto string
	for {
		line, err := readLine(br)
		if err != nil {
			return nil, false, fmt.Errorf("read answer: %w", err)
		}
		var code int
		proto, code, err = parseStatusLine(line)
		if err != nil {
			return nil, false, err
		}
		resp = &Response{StatusCode: code, Status: strings.TrimSpace(line[len(proto)+1:]), Header: map[string][]string{}}
		if err := readHeader(br, resp.Header); err != nil {
			return nil, false, err
		}
		if code >= 200 || code == 101 {
			break
		}
	}
	// After a 101 the connection speaks another protocol: never reuse it.
	reusable := proto == "HTTP/1.1" && resp.StatusCode != 101 && !hasToken(resp.Header["connection"], "close")
	switch {
	case method == "HEAD" || method == "CONNECT" && resp.StatusCode/100 == 2 ||
		resp.StatusCode == 204 || resp.StatusCode == 304 || resp.StatusCode < 200:
		return resp, reusable, nil
	case len(resp.Header["transfer-encoding"]) > 0:
		if !hasToken(resp.Header["transfer-encoding"], "chunked") {
			return nil, false, fmt.Errorf("unsupported Transfer-Encoding %q", resp.Header["transfer-encoding"])
		}
		body, err := readChunked(br, maxBody)
		if err != nil {
			return nil, false, err
		}
		resp.Body = body
		return resp, reusable, nil
	case len(resp.Header["content-length"]) > 0:
		n, err := strconv.ParseInt(resp.Header["content-length"][0], 10, 64)
		if err != nil || n < 0 {
			return nil, false, fmt.Errorf("invalid Content-Length %q", resp.Header["content-length"][0])
		}
		if n > maxBody {
			return nil, false, fmt.Errorf("%w: %d bytes, at most %d", errTooLarge, n, maxBody)
		}
		resp.Body = make([]byte, n)
		if _, err := io.ReadFull(br, resp.Body); err != nil {
			return nil, false, fmt.Errorf("read answer body: %w", err)
		}
		return resp, reusable, nil
	default: // the body ends with the connection
		body, err := io.ReadAll(io.LimitReader(br, maxBody+1))
		if err != nil {
			return nil, false, fmt.Errorf("read answer body: %w", err)
		}
		if int64(len(body)) > maxBody {
			return nil, false, fmt.Errorf("%w: over %d bytes", errTooLarge, maxBody)
		}
		resp.Body = body
		return resp, false, nil
	}
}

// parseStatusLine splits "HTTP/1.1 200 OK" into its protocol and code.
func parseStatusLine(line string) (string, int, error) {
	proto, rest, ok := strings.Cut(line, " ")
	if !ok || (proto != "HTTP/1.1" && proto != "HTTP/1.0") || len(rest) < 3 || (len(rest) > 3 && rest[3] != ' ') {
		return "", 0, fmt.Errorf("malformed status line %q", line)
	}
	code, err := strconv.Atoi(rest[:3])
	if err != nil || code < 100 {
		return "", 0, fmt.Errorf("malformed status code in %q", line)
	}
	return proto, code, nil
}

// readHeader reads header fields up to the empty line into h.
func readHeader(br *bufio.Reader, h map[string][]string) error {
	for n := 0; ; n++ {
		line, err := readLine(br)
		if err != nil {
			return fmt.Errorf("read answer header: %w", err)
		}
		if line == "" {
			return nil
		}
		if n == maxHeaders {
			return fmt.Errorf("answer header has over %d fields", maxHeaders)
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || !isToken(name) {
			return fmt.Errorf("malformed header line %q", line)
		}
		name = strings.ToLower(name)
		h[name] = append(h[name], strings.TrimSpace(value))
	}
}

// readChunked reads a chunked body and its trailer.
func readChunked(br *bufio.Reader, maxBody int64) ([]byte, error) {
	var body []byte
	for {
		line, err := readLine(br)
		if err != nil {
			return nil, fmt.Errorf("read chunk size: %w", err)
		}
		sizeText, _, _ := strings.Cut(line, ";")
		size, err := strconv.ParseInt(strings.TrimSpace(sizeText), 16, 64)
		if err != nil || size < 0 {
			return nil, fmt.Errorf("malformed chunk size %q", line)
		}
		if size == 0 {
			return body, readHeader(br, map[string][]string{})
		}
		// Compared so, not as len(body)+size, the sum cannot overflow.
		if size > maxBody-int64(len(body)) {
			return nil, fmt.Errorf("%w: over %d bytes", errTooLarge, maxBody)
		}
		start := len(body)
		body = append(body, make([]byte, size)...)
		if _, err := io.ReadFull(br, body[start:]); err != nil {
			return nil, fmt.Errorf("read chunk: %w", err)
		}
		if end, err := readLine(br); err != nil || end != "" {
			return nil, fmt.Errorf("chunk not followed by CRLF")
		}
	}
}

// readLine reads one line without its CRLF (or LF), at most maxLine bytes.
func readLine(br *bufio.Reader) (string, error) {
	var buf []byte
	for {
		part, more, err := br.ReadLine()
		if err != nil {
			if err == io.EOF && buf != nil {
				err = io.ErrUnexpectedEOF
			}
			return "", err
		}
		buf = append(buf, part...)
		if len(buf) > maxLine {
			return "", fmt.Errorf("line over %d bytes", maxLine)
		}
		if !more {
			return string(bytes.TrimRight(buf, "\r")), nil
		}
	}
}

// hasToken reports whether a comma-separated field holds tok (any case).
func hasToken(values []string, tok string) bool {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(part), tok) {
				return true
			}
		}
	}
	return false
}
