// Package static embeds the dashboard's front-end files (stylesheet, script and
// vendored htmx) and serves them at content-hashed paths, so that browsers can
// cache them forever and still pick up a new build at once.
package static

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"sort"
	"strings"
	"time"
)

//go:embed app.css app.js usage.js calendar.js favicon.svg vendor/*.js vendor/*.css
var files embed.FS

// Prefix is the URL path the handler is mounted at.
const Prefix = "/static/"

// hashLen is how many hex characters of the sha256 go into a hashed name.
const hashLen = 10

// contentTypes pins the types we serve, rather than trusting the host's
// mime.types, which differs between machines.
var contentTypes = map[string]string{
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".json": "application/json",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".ico":  "image/x-icon",
	".txt":  "text/plain; charset=utf-8",
}

// asset is one embedded file with its precomputed metadata.
type asset struct {
	name   string // "vendor/htmx-2.0.11.min.js"
	hashed string // "vendor/htmx-2.0.11.min.3f2a1b9c0d.js"
	etag   string // `"3f2a1b9c0d..."`, quoted
	ctype  string
	body   []byte
}

// Assets serves the embedded files at content-hashed paths.
type Assets struct {
	byName   map[string]*asset
	byHashed map[string]*asset
}

// New hashes every embedded file once (sha256, first 10 hex characters).
func New() (*Assets, error) {
	return newFromFS(files)
}

// newFromFS builds Assets from any file system; tests use it with fstest.MapFS.
func newFromFS(fsys fs.FS) (*Assets, error) {
	a := &Assets{byName: map[string]*asset{}, byHashed: map[string]*asset{}}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		full := hex.EncodeToString(sum[:])
		ext := path.Ext(name)
		ctype, ok := contentTypes[ext]
		if !ok {
			if ctype = mime.TypeByExtension(ext); ctype == "" {
				ctype = "application/octet-stream"
			}
		}
		as := &asset{
			name:   name,
			hashed: strings.TrimSuffix(name, ext) + "." + full[:hashLen] + ext,
			etag:   `"` + full[:2*hashLen] + `"`,
			ctype:  ctype,
			body:   body,
		}
		a.byName[name] = as
		a.byHashed[as.hashed] = as
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("static: hashing embedded files: %w", err)
	}
	return a, nil
}

// Path returns the URL of the named file with its content hash, e.g.
// "app.css" -> "/static/app.3f2a1b9c0d.css". An unknown name yields
// "/static/"+name, which the handler answers with 404.
func (a *Assets) Path(name string) string {
	if as, ok := a.byName[name]; ok {
		return Prefix + as.hashed
	}
	return Prefix + name
}

// Has reports whether name (unhashed, e.g. "app.css") is an embedded file.
func (a *Assets) Has(name string) bool {
	_, ok := a.byName[name]
	return ok
}

// Names lists the embedded files by their unhashed names, sorted.
func (a *Assets) Names() []string {
	names := make([]string, 0, len(a.byName))
	for n := range a.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ServeHTTP serves a file under /static/. A path with the file's current hash
// is cached for a year as immutable; an unhashed path must be revalidated
// (Cache-Control: no-cache, answered with 304 on a matching ETag); anything
// else, including stale hashes and path tricks, is 404. The request path may
// carry the /static/ prefix or have had it stripped (http.StripPrefix).
func (a *Assets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
		return
	}
	p := r.URL.Path
	if rest, ok := strings.CutPrefix(p, Prefix); ok {
		p = rest
	} else {
		p = strings.TrimPrefix(p, "/")
	}
	// Exact map lookups only: "..", "//", "./" and friends never match.
	cache := "public, max-age=31536000, immutable"
	as, ok := a.byHashed[p]
	if !ok {
		cache = "no-cache"
		if as, ok = a.byName[p]; !ok {
			http.NotFound(w, r)
			return
		}
	}
	h := w.Header()
	h.Set("Cache-Control", cache)
	h.Set("Content-Type", as.ctype)
	h.Set("ETag", as.etag)
	h.Set("X-Content-Type-Options", "nosniff")
	// ServeContent handles HEAD, Range and If-None-Match (304).
	http.ServeContent(w, r, as.name, time.Time{}, bytes.NewReader(as.body))
}
