package edge

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/google/uuid"
)

// Refusal is a refusal in the service's error body.
type Refusal struct {
	Status    int
	ErrorType string
	Message   string // "" leaves "error" out, as some 401/403 answers do
	fields    []FieldError
}

type FieldError struct {
	Field   string `json:"field"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Refusal) Error() string {
	if e.Message != "" {
		return e.Message
	}
	if len(e.fields) > 0 {
		return e.fields[0].Field + ": " + e.fields[0].Message
	}
	return e.ErrorType
}

// StatusCode is the HTTP status the service answers with.
func (e *Refusal) StatusCode() int { return e.Status }

func BadData(msg string) *Refusal {
	return &Refusal{Status: 400, ErrorType: "bad_data", Message: msg}
}

func FieldErrors(fields ...FieldError) *Refusal {
	return &Refusal{Status: 400, ErrorType: "bad_data", fields: fields}
}

func NotAuthorized(msg string) *Refusal {
	return &Refusal{Status: 401, ErrorType: "not_authorized", Message: msg}
}

var (
	ErrNoSuchPayment  = &Refusal{Status: 404, ErrorType: "not_found", Message: "no such payment"}
	ErrNoSuchSession  = &Refusal{Status: 404, ErrorType: "not_found", Message: "no such checkout session"}
	ErrLocked         = &Refusal{Status: 409, ErrorType: "conflict", Message: "could not acquire lock: payment is locked"}
	ErrInvalidID      = BadData("invalid payment id")
	ErrWrongRegion    = &Refusal{Status: 403, ErrorType: "no_permission", Message: "merchant region does not match cluster region"}
	ErrTokensDisabled = &Refusal{Status: 403, ErrorType: "no_permission"}
)

func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		WriteError(w, err)
		return
	}
	writeBody(w, status, b)
}

// WriteRawJSON answers JSON already encoded.
func WriteRawJSON(w http.ResponseWriter, b []byte) { writeBody(w, http.StatusOK, b) }

// writeBody answers status and the JSON b, a line. Its length is said
// up front: without it net/http sends a body of over 2 KiB (a payment
// with its captures and refunds, a checkout) in chunks, which the client
// has to take apart. A body that long is written with its line's end in
// one write, which httpserve's connections send whole (answerConn):
// written apart, the line's end would go out on its own.
func writeBody(w http.ResponseWriter, status int, b []byte) {
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["Content-Length"] = []string{strconv.Itoa(len(b) + len(newline))}
	w.WriteHeader(status)
	if len(b) < lineWhole {
		_, _ = w.Write(b)
		_, _ = w.Write(newline)
		return
	}
	line := linePool.Get().(*[]byte)
	*line = append(append((*line)[:0], b...), newline...)
	_, _ = w.Write(*line)
	if cap(*line) <= maxPooledLine {
		linePool.Put(line)
	}
}

// lineWhole is the body's length from which it is written with its
// line's end: net/http buffers a shorter body's writes together (2 KiB).
const lineWhole = 2 << 10

// maxPooledLine bounds the lines kept for the next answer.
const maxPooledLine = 64 << 10

var linePool = sync.Pool{New: func() any { return new([]byte) }}

// jsonContentType and newline are shared by every answer rather than
// made for each: a header value and a write are only read.
var (
	jsonContentType = []string{"application/json; charset=utf-8"}
	newline         = []byte{'\n'}
)

// errorBody is the service's error body, in its field order.
type errorBody struct {
	Status    string       `json:"status"`
	ErrorType string       `json:"errorType"`
	Error     string       `json:"error,omitempty"`
	Errors    []FieldError `json:"errors,omitempty"`
}

// WriteError answers err in the service's error body; anything that is not
// a refusal is an internal failure.
func WriteError(w http.ResponseWriter, err error) {
	var ae *Refusal
	if !errors.As(err, &ae) {
		ae = &Refusal{Status: 500, ErrorType: "internal", Message: "Internal Server Error"}
		noteFailure(w, err)
	}
	body := errorBody{Status: "error", ErrorType: ae.ErrorType}
	if len(ae.fields) > 0 {
		body.Errors = ae.fields
	} else {
		body.Error = ae.Message
	}
	b, _ := json.Marshal(body)
	writeBody(w, ae.Status, b)
}

// ValidUUID accepts only the canonical 36-character form, as ids appear in
// the service's answers.
func ValidUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}

// CanonicalID checks id as validUUID does and answers it in lower case.
// Ids are stored as uuid.NewString writes them, in lower case, and looked
// up by string equality; a client that sends an id in capitals (which
// validUUID accepts, hex being case-blind) must find the same object
// rather than a 404.
func CanonicalID(id string) (string, bool) {
	if !ValidUUID(id) {
		return "", false
	}
	return strings.ToLower(id), true
}

// FailureNoter is a ResponseWriter that keeps why an answer was a 500: the
// in-process transport's Recorder, which hands a failed state file to the
// command instead of a bare 500.
type FailureNoter interface{ NoteFailure(error) }

// noteFailure tells the first FailureNoter under w (through the writers'
// Unwrap) of err.
func noteFailure(w http.ResponseWriter, err error) {
	for w != nil {
		if n, ok := w.(FailureNoter); ok {
			n.NoteFailure(err)
			return
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return
		}
		w = u.Unwrap()
	}
}
