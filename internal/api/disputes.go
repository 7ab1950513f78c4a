package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/bnpl-cli/bnpl/internal/wire"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
)

// Disputes and dispute webhooks exist on live payments only: the service
// refuses a test key with 403 "disputes have no test mode".

// DisputeListParams filter and page GET /api/v1/disputes.
type DisputeListParams struct {
	// Statuses are sent as repeated "statuses"; none means every status.
	Statuses []string
	// CreatedAtGTE and CreatedAtLTE are RFC 3339 times (a bare date is
	// accepted too).
	CreatedAtGTE, CreatedAtLTE string
	// PageToken is the NextPageToken of the previous page.
	PageToken string
}

func (p DisputeListParams) query() (url.Values, error) {
	v := &ValidationError{}
	q := url.Values{}
	for _, s := range p.Statuses {
		// Statuses beyond the known ones may appear later; the service
		// judges them, the client only refuses what cannot be a status.
		if s == "" || strings.ContainsAny(s, " ,") {
			v.Add("statuses", "%q is not a dispute status (known: %s)", s, strings.Join(DisputeStatuses, ", "))
			continue
		}
		q.Add("statuses", s)
	}
	for _, t := range []struct{ name, value string }{
		{"created_at_gte", p.CreatedAtGTE},
		{"created_at_lte", p.CreatedAtLTE},
	} {
		if t.value == "" {
			continue
		}
		if !isDateOrTime(t.value) {
			v.Add(t.name, "%q is neither a date (2006-01-02) nor an RFC 3339 time", t.value)
		}
		q.Set(t.name, t.value)
	}
	if p.PageToken != "" {
		q.Set("page_token", p.PageToken)
	}
	return q, v.Err()
}

// ListDisputes reads one page of disputes; an empty NextPageToken means it
// was the last.
func (c *Client) ListDisputes(ctx context.Context, p DisputeListParams) (*DisputeList, error) {
	return c.listDisputes(ctx, p, false)
}

func (c *Client) listDisputes(ctx context.Context, p DisputeListParams, sendInDryRun bool) (*DisputeList, error) {
	q, err := p.query()
	if err != nil {
		return nil, err
	}
	cl := &call{method: http.MethodGet, path: "/api/v1/disputes", op: "GET /api/v1/disputes", query: q, policy: retrySafe, sendInDryRun: sendInDryRun}
	var l DisputeList
	if err := c.doJSON(ctx, cl, &l); err != nil {
		return nil, err
	}
	if l.Disputes == nil {
		l.Disputes = []Dispute{}
	}
	return &l, nil
}

func disputePath(id string) string { return "/api/v1/disputes/" + url.PathEscape(id) }

// GetDispute reads a dispute with its history. The service wraps it as
// {"dispute": {...}}; the returned Dispute's Raw() is the inner object, the
// same shape as the items of ListDisputes, so that `-o json` of a get and
// of a list agree. An answer that is not wrapped is taken as the dispute
// itself.
func (c *Client) GetDispute(ctx context.Context, id string) (*Dispute, error) {
	if err := validID("dispute id", id); err != nil {
		return nil, err
	}
	cl := &call{method: http.MethodGet, path: disputePath(id), op: "GET /api/v1/disputes/{id}", policy: retrySafe}
	res, err := c.execute(ctx, cl)
	if err != nil {
		return nil, err
	}
	var wrapper struct {
		Dispute json.RawMessage `json:"dispute"`
	}
	inner := res.body
	if err := json.Unmarshal(res.body, &wrapper); err == nil && len(wrapper.Dispute) > 0 && !bytes.Equal(wrapper.Dispute, []byte("null")) {
		inner = wrapper.Dispute
	}
	var d Dispute
	if err := decodeInto(cl, inner, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// CheckAttachment applies the upload's local rules (a name, not empty, at
// most 5 MB, PNG, JPEG or PDF by content) and returns the size. It leaves r
// rewound, so callers can check every file before uploading any.
func CheckAttachment(filename string, r io.ReadSeeker) (int64, error) {
	v := &ValidationError{}
	name := filepath.Base(filename)
	if filename == "" || name == "." || name == string(filepath.Separator) {
		v.Add("attachment", "a file name is needed")
	}
	if r == nil {
		v.Add("attachment", "no file to upload")
		return 0, v
	}
	size, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", filename, err)
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return 0, fmt.Errorf("reading %s: %w", filename, err)
	}
	switch {
	case size == 0:
		v.Add("attachment", "%s is empty", name)
	case size > MaxAttachmentBytes:
		v.Add("attachment", "%s is %.1f MB; the service takes at most 5 MB", name, float64(size)/(1<<20))
	default:
		head := make([]byte, 512)
		n, err := io.ReadFull(r, head)
		if err != nil && err != io.ErrUnexpectedEOF {
			return 0, fmt.Errorf("reading %s: %w", filename, err)
		}
		if _, err := r.Seek(0, io.SeekStart); err != nil {
			return 0, fmt.Errorf("reading %s: %w", filename, err)
		}
		if kind, ok := wire.AttachmentType(head[:n]); !ok {
			v.Add("attachment", "%s is %s; the service takes PNG, JPEG or PDF", name, kind)
		}
	}
	return size, v.Err()
}

// UploadAttachment uploads a PNG, JPEG or PDF of at most 5 MB as the
// multipart field "attachment" and returns its id, for evidence and
// challenges. r is rewound before every attempt. A repeated upload only
// leaves an unused attachment behind, so failures are retried like a read.
func (c *Client) UploadAttachment(ctx context.Context, filename string, r io.ReadSeeker) (*AttachmentUpload, error) {
	size, err := CheckAttachment(filename, r)
	if err != nil {
		return nil, err
	}
	name := filepath.Base(filename)
	cl := &call{
		method: http.MethodPost,
		path:   "/api/v1/disputes/attachments/upload",
		op:     "POST /api/v1/disputes/attachments/upload",
		file:   &fileBody{field: "attachment", name: name, r: r, size: size},
		policy: retrySafe,
	}
	var up AttachmentUpload
	if err := c.doJSON(ctx, cl, &up); err != nil {
		return nil, err
	}
	return &up, nil
}

// ProvideEvidence answers a dispute with text and up to five attachments.
func (c *Client) ProvideEvidence(ctx context.Context, id string, req EvidenceRequest) (*Evidence, error) {
	v := &ValidationError{}
	checkID(v, "dispute id", id)
	if strings.TrimSpace(req.Content) == "" {
		v.Add("$.content", "must not be empty")
	}
	checkAttachmentIDs(v, "$.attachment_ids", req.AttachmentIDs)
	if err := v.Err(); err != nil {
		return nil, err
	}
	cl, err := newJSONCall(http.MethodPost, disputePath(id)+"/provide-evidence", "/api/v1/disputes/{id}/provide-evidence", req, retryRefused)
	if err != nil {
		return nil, err
	}
	var e Evidence
	if err := c.doJSON(ctx, cl, &e); err != nil {
		return nil, err
	}
	return &e, nil
}

func checkAttachmentIDs(v *ValidationError, path string, ids []string) {
	if len(ids) > MaxEvidenceAttachments {
		v.Add(path, "at most %d attachments, got %d", MaxEvidenceAttachments, len(ids))
	}
	for i, id := range ids {
		checkID(v, fmt.Sprintf("%s[%d]", path, i), id)
	}
}

// ApproveDisputes accepts up to 20 disputes (the customer is refunded) and
// returns the service's answer as is.
func (c *Client) ApproveDisputes(ctx context.Context, ids []string) (json.RawMessage, error) {
	v := &ValidationError{}
	switch {
	case len(ids) == 0:
		v.Add("$.dispute_ids", "at least one dispute id is needed")
	case len(ids) > MaxApproveIDs:
		v.Add("$.dispute_ids", "at most %d disputes per request, got %d", MaxApproveIDs, len(ids))
	}
	for i, id := range ids {
		checkID(v, fmt.Sprintf("$.dispute_ids[%d]", i), id)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	cl, err := newJSONCall(http.MethodPost, "/api/v1/disputes/approve", "/api/v1/disputes/approve", ApproveRequest{DisputeIDs: ids}, retryRefused)
	if err != nil {
		return nil, err
	}
	return c.rawJSON(ctx, cl)
}

// ChallengeDispute asks the service's support to look at a dispute and
// returns the service's answer as is.
func (c *Client) ChallengeDispute(ctx context.Context, req ChallengeRequest) (json.RawMessage, error) {
	v := &ValidationError{}
	checkID(v, "$.dispute_id", req.DisputeID)
	if strings.TrimSpace(req.Description) == "" {
		v.Add("$.description", "must not be empty")
	}
	if !slices.Contains(ChallengeReasons, req.Reason) {
		v.Add("$.reason", "%q is not one of %s", req.Reason, strings.Join(ChallengeReasons, ", "))
	}
	switch {
	case req.Reason == ChallengeReasonAmount && req.Amount == nil:
		v.Add("$.amount", "is required with reason %s", ChallengeReasonAmount)
	case req.Amount != nil && req.Amount.IsNegative():
		v.Add("$.amount", "must not be negative")
	}
	checkAttachmentIDs(v, "$.attachment_ids", req.AttachmentIDs)
	if err := v.Err(); err != nil {
		return nil, err
	}
	cl, err := newJSONCall(http.MethodPost, "/api/v1/disputes/challenge", "/api/v1/disputes/challenge", req, retryRefused)
	if err != nil {
		return nil, err
	}
	return c.rawJSON(ctx, cl)
}

// rawJSON runs cl and returns its JSON answer undecoded.
func (c *Client) rawJSON(ctx context.Context, cl *call) (json.RawMessage, error) {
	res, err := c.execute(ctx, cl)
	if err != nil {
		return nil, err
	}
	body := bytes.TrimSpace(res.body)
	if len(body) == 0 {
		return json.RawMessage("null"), nil
	}
	if !json.Valid(body) {
		return nil, fmt.Errorf("%s: the answer is not JSON", cl.opName())
	}
	return json.RawMessage(append([]byte(nil), body...)), nil
}

// PaymentDisputes walks the disputes list, every page, and returns the
// disputes of one payment; the service has no filter by payment. Disputes
// exist on live payments only: call it with a live key. Like
// ReadBeforeMove, it reads even in a dry run.
func (c *Client) PaymentDisputes(ctx context.Context, paymentID string) ([]Dispute, error) {
	var out []Dispute
	params := DisputeListParams{}
	for {
		page, err := c.listDisputes(ctx, params, true)
		if err != nil {
			return nil, err
		}
		for _, d := range page.Disputes {
			if strings.EqualFold(d.PaymentID, paymentID) {
				out = append(out, d)
			}
		}
		if page.NextPageToken == "" || page.NextPageToken == params.PageToken {
			return out, nil
		}
		params.PageToken = page.NextPageToken
	}
}

// ActiveDispute is the first open dispute of ds, nil if none.
func ActiveDispute(ds []Dispute) *Dispute {
	for i := range ds {
		if ds[i].Active() {
			return &ds[i]
		}
	}
	return nil
}
