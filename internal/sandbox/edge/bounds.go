package edge

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/bnpl-cli/bnpl/internal/jsontree"
)

// Bounds on what one request may make the sandbox store. The service
// documents none of these (only header.title, header.value, the
// attachment size and the list page size, which are checked where they
// apply); they are the sandbox's own, chosen far above any real order so
// that no honest request meets them, and listed in docs/sandbox.md.
const (
	// MaxBodyBytes bounds a JSON request body.
	MaxBodyBytes = 1 << 20
	// MaxArrayLen bounds every array in a JSON body: order items, a
	// capture's or refund's items, order history, attachment ids.
	MaxArrayLen = 250
	// MaxStringLen bounds every string in a JSON body, in characters;
	// the checkout attachment's body, itself JSON, is bounded by the body
	// size alone.
	MaxStringLen = 4096
	// MaxReferenceIDLen bounds every reference_id (order, item, capture,
	// refund).
	MaxReferenceIDLen = 255
	// MaxCapturesPerPayment and maxRefundsPerPayment bound the moves one
	// payment keeps; maxRecordBytes bounds its stored record as a whole.
	MaxCapturesPerPayment = 100
	MaxRefundsPerPayment  = 100
	MaxRecordBytes        = 4 << 20
)

// errBodyTooLarge answers a body over maxBodyBytes, in the service's error
// form. The service's own wording for this case is not documented; the
// sandbox says what happened instead of failing to decode a cut body.
var errBodyTooLarge = BadData(fmt.Sprintf("request body too large: at most %d bytes (1 MiB)", MaxBodyBytes))

// ReadBody reads a request body of at most maxBodyBytes and checks that a
// JSON body stays within the bounds above. Its refusals are *apiError
// values, which callers answer as they are (see bodyRefusal).
func ReadBody(r *http.Request) ([]byte, error) {
	b, err := ReadSizedBody(r)
	if err != nil {
		return nil, err
	}
	if err := checkBodyBounds(b); err != nil {
		return nil, err
	}
	return b, nil
}

// A BodyTree is a request body and the JSON tree decoded from it.
type BodyTree struct {
	Bytes []byte
	// Doc is the body's first JSON value, numbers as json.Number.
	jsontree.Doc
	// Decoded tells whether the body is that one value and nothing after
	// it.
	Decoded bool
}

// ReadBodyTree is ReadBody for a handler that checks its body as a JSON
// tree (the checkout's rules): the body is decoded once, for the bounds
// and for the caller. A body that does not decode is answered as it is,
// with Decoded false: its handler refuses it in its own words.
func ReadBodyTree(r *http.Request) (BodyTree, error) {
	b, err := ReadSizedBody(r)
	if err != nil {
		return BodyTree{}, err
	}
	doc, err := jsontree.DecodeDoc(b)
	if err != nil {
		return BodyTree{Bytes: b}, nil
	}
	if !shortBody(b) {
		if err := walkBounds(nil, "", doc.Value); err != nil {
			return BodyTree{}, err
		}
	}
	return BodyTree{Bytes: b, Doc: doc, Decoded: jsontree.OnlySpace(b[doc.End:])}, nil
}

// ReadSizedBody reads a request body of at most maxBodyBytes, for the
// endpoints whose fields have the service's own documented bounds (the
// webhooks), checked by their handlers.
func ReadSizedBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	if r.ContentLength > MaxBodyBytes {
		return nil, errBodyTooLarge
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxBodyBytes {
		return nil, errBodyTooLarge
	}
	return b, nil
}

// BodyRefusal is what a handler answers when readBody fails: readBody's
// own refusal (too large, out of bounds), else the handler's usual
// decoding error.
func BodyRefusal(err, otherwise error) error {
	var ae *Refusal
	if errors.As(err, &ae) {
		return ae
	}
	return otherwise
}

// checkBodyBounds walks a JSON body and refuses, in the field-validation
// form, the first array or string over its bound. A body that is not JSON
// is left to the handler's own decoding.
func checkBodyBounds(b []byte) error {
	if shortBody(b) {
		return nil
	}
	v, _, err := jsontree.Decode(b)
	if err != nil {
		return nil
	}
	return walkBounds(nil, "", v)
}

// shortBody tells whether b is too short to break a bound: an array of n
// elements takes at least 2n bytes and a string over the bound more than
// its bound.
func shortBody(b []byte) bool { return len(b) <= 2*MaxArrayLen && len(b) <= MaxReferenceIDLen }

// boundsPath is where walkBounds is in a body, made into a JSON path only
// for the refusal that names it: one string per element walked was most
// of what a walk cost.
type boundsPath struct {
	parent *boundsPath
	key    string // a member's name, or "" for an element
	index  int    // an element's index
}

func (p *boundsPath) String() string {
	if p == nil {
		return "$"
	}
	if p.key != "" || p.index < 0 {
		return p.parent.String() + "." + p.key
	}
	return p.parent.String() + "[" + strconv.Itoa(p.index) + "]"
}

// walkBounds refuses the first array or string in v over its bound: at
// is where v is, key the name of the member that holds it (or holds the
// array that does).
func walkBounds(at *boundsPath, key string, v any) error {
	switch x := v.(type) {
	case string:
		if len(x) <= MaxReferenceIDLen {
			return nil // not over either bound, in bytes or characters
		}
		n := utf8.RuneCountInString(x)
		switch {
		case key == "reference_id" && n > MaxReferenceIDLen:
			return boundError(at.String(), fmt.Sprintf("is longer than %d characters", MaxReferenceIDLen))
		case n > MaxStringLen:
			if path := at.String(); path != "$.attachment.body" {
				return boundError(path, fmt.Sprintf("is longer than %d characters", MaxStringLen))
			}
		}
	case []any:
		if len(x) > MaxArrayLen {
			return boundError(at.String(), fmt.Sprintf("has more than %d elements", MaxArrayLen))
		}
		for i, e := range x {
			if err := walkBounds(&boundsPath{parent: at, index: i}, key, e); err != nil {
				return err
			}
		}
	case map[string]any:
		for k, e := range x {
			if err := walkBounds(&boundsPath{parent: at, key: k, index: -1}, k, e); err != nil {
				return err
			}
		}
	}
	return nil
}

func boundError(path, msg string) error {
	return FieldErrors(FieldError{Field: path, Code: "invalid_value", Message: msg + " (a bound of this sandbox)"})
}

// MultipartSlack is what the multipart framing may add to the file.
const MultipartSlack = 64 << 10
