package har

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/andybalholm/brotli"

	"github.com/bnpl-cli/bnpl/internal/zstd"
)

// A body sent with a content encoding cannot be masked as it travels: a
// key or a webhook's signing value inside it is compressed out of sight.
// So a recording keeps every encoded body decoded, masked as any other,
// and a body it cannot decode is withheld: never kept as it went.

// UndecodableError is a body whose content encoding could not be undone.
type UndecodableError struct {
	Encoding string // the encoding that failed, as named
	Err      error  // nil when the encoding is not one bnpl knows
}

func (e *UndecodableError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("content encoding %q is not one bnpl can decode", e.Encoding)
	}
	return fmt.Sprintf("the body is not valid %s: %v", e.Encoding, e.Err)
}

func (e *UndecodableError) Unwrap() error { return e.Err }

// zstdWindow is the largest window a zstd body may ask for: HTTP's own
// bound for the encoding (RFC 9659), which keeps a hostile frame from
// making the decoder take gigabytes.
const zstdWindow = 8 << 20

// Encodings lists a message's content encodings in the order they were
// applied, from every Content-Encoding header it has.
func Encodings(h http.Header) string {
	return strings.Join(h.Values("Content-Encoding"), ", ")
}

// DecodeBody undoes the content encodings named in encodings (a
// Content-Encoding value: "gzip", "br", "gzip, br" for gzip then brotli),
// the last applied first. The decoded body is at most limit bytes
// (DefaultMaxBody when limit is 0 or less).
//
// cut tells that the answer is only the start of the body: the encoded
// body ended early (a body cut at a recording's bound decodes as far as
// it goes), or the decoded body reached limit. An encoding bnpl does not
// know, or data that is not of the encoding named, is an
// *UndecodableError, and out is nil: such a body cannot be masked, and
// must not be kept.
//
// Known encodings: gzip and x-gzip; deflate (zlib as HTTP defines it, and
// raw deflate as some servers send it); br; zstd; identity.
func DecodeBody(encodings string, body []byte, limit int64) (out []byte, cut bool, err error) {
	if limit <= 0 {
		limit = DefaultMaxBody
	}
	// The decoders are chained, each reading the one after it, so that
	// only what the outermost gives is held (at most limit bytes).
	var r io.Reader = bytes.NewReader(body)
	names := strings.Split(encodings, ",")
	chained := 0
	for i := len(names) - 1; i >= 0; i-- {
		name := strings.ToLower(strings.TrimSpace(names[i]))
		if name == "" || name == "identity" {
			continue
		}
		next, closer, err := decoder(name, r)
		if closer != nil {
			defer closer()
		}
		if err != nil {
			if errors.Is(err, errUnknown) {
				err = nil
			} else if ended(err) {
				return []byte{}, true, nil
			}
			return nil, false, &UndecodableError{Encoding: strings.TrimSpace(names[i]), Err: err}
		}
		r = next
		chained++
	}
	if chained == 0 || len(body) == 0 {
		if int64(len(body)) > limit {
			return body[:limit], true, nil
		}
		return body, false, nil
	}
	out, err = io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		if !ended(err) {
			return nil, false, &UndecodableError{Encoding: strings.TrimSpace(encodings), Err: err}
		}
		cut = true
	}
	if int64(len(out)) > limit {
		out, cut = out[:limit], true
	}
	return out, cut, nil
}

// errUnknown marks an encoding DecodeBody does not know.
var errUnknown = errors.New("unknown encoding")

// decoder reads one encoding from r.
func decoder(name string, r io.Reader) (io.Reader, func(), error) {
	switch name {
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(r)
		return zr, nil, err
	case "deflate":
		br := bufio.NewReader(r)
		if head, _ := br.Peek(2); isZlib(head) {
			zr, err := zlib.NewReader(br)
			return zr, nil, err
		}
		return flate.NewReader(br), nil, nil
	case "br":
		return brotli.NewReader(r), nil, nil
	case "zstd":
		return zstd.NewReader(r, zstdWindow), nil, nil
	}
	return nil, nil, errUnknown
}

// ended tells a stream that ended early: the body was cut, and what came
// before is the start of it.
func ended(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

// isZlib tells a zlib stream (RFC 1950) by its two-byte header: deflate
// with a window of at most 32 KiB, and a check that makes the pair a
// multiple of 31.
func isZlib(b []byte) bool {
	return len(b) >= 2 && b[0]&0x0f == 8 && b[0]>>4 <= 7 && (uint16(b[0])<<8|uint16(b[1]))%31 == 0
}
