package edge

import (
	"bytes"
	"net/http"
)

// Recorder collects a handler's answer. The header is frozen when the
// status is written, as on a real connection.
type Recorder struct {
	header http.Header
	Sent   http.Header
	Status int
	Body   bytes.Buffer
	// Failure is why the handler answered 500, when it said (WriteError).
	Failure error
}

// NoteFailure keeps err as the reason of a 500 answer.
func (r *Recorder) NoteFailure(err error) { r.Failure = err }

// NewRecorder answers an empty Recorder.
func NewRecorder() *Recorder { return &Recorder{header: http.Header{}} }

// Header is the header the handler writes to.
func (r *Recorder) Header() http.Header { return r.header }

func (r *Recorder) WriteHeader(status int) {
	if r.Status != 0 {
		return
	}
	r.Status = status
	r.Sent = r.header.Clone()
}

// Write sniffs the content type of a body that did not declare one, as
// net/http does.
func (r *Recorder) Write(p []byte) (int, error) {
	if r.Status == 0 {
		r.WriteHeader(http.StatusOK)
	}
	if r.Body.Len() == 0 && len(p) > 0 && r.Sent.Get("Content-Type") == "" {
		r.Sent.Set("Content-Type", http.DetectContentType(p))
	}
	return r.Body.Write(p)
}
