package sandbox

import (
	"bytes"
	"net/http"
)

// recorder collects a handler's answer. The header is frozen when the
// status is written, as on a real connection.
type recorder struct {
	header http.Header
	sent   http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status != 0 {
		return
	}
	r.status = status
	r.sent = r.header.Clone()
}

// Write sniffs the content type of a body that did not declare one, as
// net/http does.
func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.WriteHeader(http.StatusOK)
	}
	if r.body.Len() == 0 && len(p) > 0 && r.sent.Get("Content-Type") == "" {
		r.sent.Set("Content-Type", http.DetectContentType(p))
	}
	return r.body.Write(p)
}
