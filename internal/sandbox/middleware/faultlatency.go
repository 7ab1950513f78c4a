package middleware

import (
	"bytes"
	"io"
	"net/http"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/wire"
)

// maxHeldBody is the most of a body the latency wait reads ahead: the
// largest any endpoint takes, an attachment upload with its multipart
// framing.
const maxHeldBody = wire.MaxAttachmentBytes + edge.MultipartSlack

// waitLatency holds a request for the latency fault and tells whether it
// may still run. A client that gives up during the wait must find that
// nothing ran, as the docs promise; but net/http notices a closed
// connection (and cancels the request's context) only once the handler
// has read the body to its end. So the body is read first, up to the
// largest body any endpoint takes (an attachment), and put back for the
// handler; then the wait; then the context decides.
func waitLatency(r *http.Request, d time.Duration) bool {
	if r.Body != nil && r.Body != http.NoBody {
		buf, err := io.ReadAll(io.LimitReader(r.Body, maxHeldBody+1))
		rest := io.Reader(bytes.NewReader(buf))
		if err == nil && len(buf) > maxHeldBody {
			rest = io.MultiReader(rest, r.Body) // over any limit: the handler refuses it
		}
		r.Body = struct {
			io.Reader
			io.Closer
		}{rest, r.Body}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
		return false
	}
	return r.Context().Err() == nil
}
