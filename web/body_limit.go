package web

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// Request bodies are bounded on every route before anything reads them:
// CheckParams' form parsing, the CSRF check's form lookup (which would
// otherwise spool a multipart body of any size to disk before its 400),
// and handlers. Groups may bound theirs further (the JSON API: 1 MB).
const (
	// DefaultBodyLimit bounds the body of every route but uploads.
	DefaultBodyLimit = 2 << 20
	// UploadBodyLimit bounds the body of an upload route (uploadRoutes):
	// a sheet of up to 1 MiB, as a file or pasted and sent back encoded.
	UploadBodyLimit = 4 << 20
	// SessionBodyLimit bounds a body sent through the session proxy (/s/):
	// a notebook with its outputs, a file uploaded to Jupyter.
	SessionBodyLimit = 256 << 20
)

// limitBodies refuses a body over the route's limit at once when its
// Content-Length says so (413, before a byte is read), and stops reading
// one that grows past it while streamed (a chunked body) with the same
// 413. Only upload routes take multipart bodies; anywhere else one is a
// 415 before it is parsed.
func limitBodies(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		upload := uploadRoutes[c.Path()]
		limit := int64(DefaultBodyLimit)
		if upload {
			limit = UploadBodyLimit
		}
		if strings.HasPrefix(c.Path(), "/s/:id") {
			upload, limit = true, SessionBodyLimit // the session's server decides what it takes
		}
		if r.ContentLength > limit {
			return tooLarge(limit)
		}
		ct := strings.ToLower(strings.TrimSpace(r.Header.Get(echo.HeaderContentType)))
		if strings.HasPrefix(ct, "multipart/") && !upload {
			return handlers.Errorf(http.StatusUnsupportedMediaType, api.CodeUnsupportedMediaType,
				"this route takes no multipart body: send the form url-encoded")
		}
		if r.Body == nil || r.Body == http.NoBody {
			return next(c)
		}
		body := &limitedBody{ReadCloser: http.MaxBytesReader(c.Response(), r.Body, limit)}
		r.Body = body
		err := next(c)
		if err != nil && body.over.Load() {
			// Whoever read it (a form parser, the CSRF check) gave up
			// with an error of its own: the cause is the size.
			return tooLarge(limit)
		}
		return err
	}
}

// limitedBody notes that a read went past the limit.
type limitedBody struct {
	io.ReadCloser
	over atomic.Bool
}

func (b *limitedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	var big *http.MaxBytesError
	if errors.As(err, &big) {
		b.over.Store(true)
	}
	return n, err
}

func tooLarge(limit int64) error {
	return handlers.Errorf(http.StatusRequestEntityTooLarge, api.CodeBodyTooLarge, "the request body is larger than %d bytes", limit)
}
