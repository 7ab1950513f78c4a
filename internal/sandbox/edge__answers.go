package sandbox

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/google/uuid"
)

// apiError is a refusal in the service's error body.
type apiError struct {
	status    int
	errorType string
	message   string // "" leaves "error" out, as some 401/403 answers do
	fields    []fieldError
}

type fieldError struct {
	Field   string `json:"field"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *apiError) Error() string {
	if e.message != "" {
		return e.message
	}
	if len(e.fields) > 0 {
		return e.fields[0].Field + ": " + e.fields[0].Message
	}
	return e.errorType
}

// StatusCode is the HTTP status the service answers with.
func (e *apiError) StatusCode() int { return e.status }

func badData(msg string) *apiError {
	return &apiError{status: 400, errorType: "bad_data", message: msg}
}

func fieldErrors(fields ...fieldError) *apiError {
	return &apiError{status: 400, errorType: "bad_data", fields: fields}
}

func notAuthorized(msg string) *apiError {
	return &apiError{status: 401, errorType: "not_authorized", message: msg}
}

var (
	errNoSuchPayment  = &apiError{status: 404, errorType: "not_found", message: "no such payment"}
	errNoSuchSession  = &apiError{status: 404, errorType: "not_found", message: "no such checkout session"}
	errLocked         = &apiError{status: 409, errorType: "conflict", message: "could not acquire lock: payment is locked"}
	errInvalidID      = badData("invalid payment id")
	errWrongRegion    = &apiError{status: 403, errorType: "no_permission", message: "merchant region does not match cluster region"}
	errTokensDisabled = &apiError{status: 403, errorType: "no_permission"}
)

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
	_, _ = w.Write([]byte{'\n'})
}

// writeRawJSON answers JSON already encoded.
func writeRawJSON(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
	_, _ = w.Write([]byte{'\n'})
}

// errorBody is the service's error body, in its field order.
type errorBody struct {
	Status    string       `json:"status"`
	ErrorType string       `json:"errorType"`
	Error     string       `json:"error,omitempty"`
	Errors    []fieldError `json:"errors,omitempty"`
}

// writeError answers err in the service's error body; anything that is not
// a refusal is an internal failure.
func writeError(w http.ResponseWriter, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = &apiError{status: 500, errorType: "internal", message: "Internal Server Error"}
	}
	body := errorBody{Status: "error", ErrorType: ae.errorType}
	if len(ae.fields) > 0 {
		body.Errors = ae.fields
	} else {
		body.Error = ae.message
	}
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(ae.status)
	_, _ = w.Write(b)
	_, _ = w.Write([]byte{'\n'})
}

// validUUID accepts only the canonical 36-character form, as ids appear in
// the service's answers.
func validUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}

// canonicalID checks id as validUUID does and answers it in lower case.
// Ids are stored as uuid.NewString writes them, in lower case, and looked
// up by string equality; a client that sends an id in capitals (which
// validUUID accepts, hex being case-blind) must find the same object
// rather than a 404.
func canonicalID(id string) (string, bool) {
	if !validUUID(id) {
		return "", false
	}
	return strings.ToLower(id), true
}
