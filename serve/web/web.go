// Package web is the page of tierd serve: static files (HTML, CSS and
// vanilla JavaScript, no build step) embedded in the binary and served at
// "/". The page asks the server's own API (/api/v1/) for runs, positions
// and lines of best play and draws each bundled game's board as SVG; it
// fetches nothing from anywhere else.
package web

import (
	"bytes"
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

//go:embed static
var files embed.FS

// static is the page's files, rooted at the folder static.
var static = mustSub(files, "static")

func mustSub(f fs.FS, dir string) fs.FS {
	s, err := fs.Sub(f, dir)
	if err != nil { // cannot happen: the folder is embedded above
		panic(err)
	}
	return s
}

// contentTypes names the media type of each kind of file the page has,
// so that the answer does not depend on the machine's MIME tables.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".svg":  "image/svg+xml",
}

// csp lets the page load only its own files and talk only to its own
// server: nothing inline, nothing from the internet.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the page: "/" (and "/index.html") is the page, other
// paths name its files; anything else is 404, and methods other than GET
// and HEAD get 405.
func Handler() http.Handler {
	return http.HandlerFunc(serve)
}

// modTime is when the files were built into the binary, for
// If-Modified-Since; embedded files carry no time of their own.
var modTime = time.Now()

func serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name == "" {
		name = "index.html"
	}
	ct, known := contentTypes[path.Ext(name)]
	data, err := fs.ReadFile(static, name)
	if !known || err != nil {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", ct)
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	// The page changes only with the binary: let browsers keep it but ask
	// again, so a new tierd serve is seen at once.
	h.Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, name, modTime, bytes.NewReader(data))
}
