package console

import (
	"embed"
	"io/fs"
	"net/http"
)

// The page: plain HTML, CSS and a JavaScript module that calls the JSON
// API. Nothing is built or fetched from elsewhere.
//
//go:embed ui
var uiFiles embed.FS

var uiServer = func() http.Handler {
	sub, err := fs.Sub(uiFiles, "ui")
	if err != nil {
		panic(err)
	}
	return http.StripPrefix("/_sqsq/ui/", http.FileServerFS(sub))
}()

// serveUI serves the files of the page under /_sqsq/ui/. The policy lets
// the page load its own files and call its own origin only, and no other
// page frame it.
func serveUI(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
	uiServer.ServeHTTP(w, r)
}
