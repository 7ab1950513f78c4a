package edge

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

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
	w.Header()["Content-Type"] = jsonContentType
	w.WriteHeader(status)
	_, _ = w.Write(b)
	_, _ = w.Write(newline)
}

// WriteRawJSON answers JSON already encoded.
func WriteRawJSON(w http.ResponseWriter, b []byte) {
	w.Header()["Content-Type"] = jsonContentType
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
	_, _ = w.Write(newline)
}

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
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(ae.Status)
	_, _ = w.Write(b)
	_, _ = w.Write([]byte{'\n'})
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
