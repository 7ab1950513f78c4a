package api

import (
	"context"
	"net/http"
	"net/url"
	"strings"
)

// RawRequest is a request of `bnpl api`: any method and path of the
// service, sent with the client's key, headers, retries and masking.
type RawRequest struct {
	Method string
	// Path is relative to the base address and may carry a query
	// ("/api/v2/payments?limit=5"), merged with Query.
	Path   string
	Query  url.Values
	Header http.Header
	// Body is sent as is, as application/json unless Header says otherwise.
	Body []byte
}

// RawResponse is the service's answer as received.
type RawResponse struct {
	Status int
	Header http.Header
	Body   []byte
}

// Raw sends r. A non-2xx answer returns both the RawResponse and an
// *APIError, so that the caller can print the body and still exit with
// the status's code. GET, HEAD, OPTIONS and PUT are retried like reads;
// other methods only when the request surely did not arrive.
func (c *Client) Raw(ctx context.Context, r RawRequest) (*RawResponse, error) {
	v := &ValidationError{}
	method := strings.ToUpper(strings.TrimSpace(r.Method))
	if !isToken(method) {
		v.Add("method", "%q is not an HTTP method", r.Method)
	}
	path, rawQuery, _ := strings.Cut(r.Path, "?")
	// Only paths: a full URL or a //host path would send the key to
	// whatever host it names.
	switch {
	case !strings.HasPrefix(path, "/"):
		v.Add("path", "%q must begin with / (a path of the service, not a URL)", r.Path)
	case strings.HasPrefix(path, "//"):
		v.Add("path", "%q must be a path of the service, not a host", r.Path)
	}
	parsed, err := url.Parse(path)
	if err != nil {
		v.Add("path", "%q is not a valid path: %v", r.Path, err)
	}
	query, err := url.ParseQuery(rawQuery)
	if err != nil {
		v.Add("path", "the query of %q is malformed: %v", r.Path, err)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	for k, vs := range r.Query {
		for _, val := range vs {
			query.Add(k, val)
		}
	}
	// A path given already escaped is kept as it was; one with raw spaces
	// or the like is escaped.
	escaped := parsed.EscapedPath()

	policy := retryRefused
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut:
		policy = retrySafe
	}
	header := http.Header{}
	if isWebhookPath(parsed.Path) {
		for k, vs := range c.merchantHeader() {
			header[k] = vs
		}
	}
	for k, vs := range r.Header {
		header[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	cl := &call{method: method, path: escaped, query: query, header: header, policy: policy}
	if len(r.Body) > 0 {
		cl.body = r.Body
	}
	if len(query) == 0 {
		cl.query = nil
	}

	res, err := c.execute(ctx, cl)
	if err == nil {
		return &RawResponse{Status: res.status, Header: res.header, Body: res.body}, nil
	}
	if _, ok := AsAPIError(err); ok && res != nil {
		return &RawResponse{Status: res.status, Header: res.header, Body: res.body}, err
	}
	return nil, err
}

func isWebhookPath(path string) bool {
	for _, base := range []string{webhooksPath, disputeWebhooksPath} {
		if path == base || strings.HasPrefix(path, base+"/") {
			return true
		}
	}
	return false
}
