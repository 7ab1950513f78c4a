package api

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// PaymentListStatuses are the values of the payments list's status filter:
// three API statuses, then four dashboard statuses.
var PaymentListStatuses = []string{"authorized", "closed", "rejected", "new", "captured", "refunded", "cancelled"}

// ListPaymentsParams filter and page GET /api/v2/payments. Zero values are
// left out, so that the service's defaults apply (AUTHORIZED and CLOSED
// payments, its default page size, the first page).
type ListPaymentsParams struct {
	// Status is one of PaymentListStatuses.
	Status string
	// CreatedAtGTE and CreatedAtLTE are a date (midnight UTC) or an RFC
	// 3339 time.
	CreatedAtGTE, CreatedAtLTE string
	// Limit is at most MaxPageLimit; Offset counts from zero.
	Limit, Offset int
}

func (p ListPaymentsParams) query() (url.Values, error) {
	v := &ValidationError{}
	q := url.Values{}
	if p.Status != "" {
		status := strings.ToLower(p.Status)
		known := false
		for _, s := range PaymentListStatuses {
			known = known || s == status
		}
		if !known {
			v.Add("status", "%q is not one of %s", p.Status, strings.Join(PaymentListStatuses, ", "))
		}
		q.Set("status", status)
	}
	for _, t := range []struct{ name, value string }{
		{"created_at__gte", p.CreatedAtGTE},
		{"created_at__lte", p.CreatedAtLTE},
	} {
		if t.value == "" {
			continue
		}
		if !isDateOrTime(t.value) {
			v.Add(t.name, "%q is neither a date (2006-01-02) nor an RFC 3339 time", t.value)
		}
		q.Set(t.name, t.value)
	}
	switch {
	case p.Limit < 0 || p.Limit > MaxPageLimit:
		v.Add("limit", "must be between 1 and %d, got %d", MaxPageLimit, p.Limit)
	case p.Limit > 0:
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	switch {
	case p.Offset < 0:
		v.Add("offset", "must not be negative, got %d", p.Offset)
	case p.Offset > 0:
		q.Set("offset", strconv.Itoa(p.Offset))
	}
	return q, v.Err()
}

func isDateOrTime(s string) bool {
	if _, err := time.Parse(time.DateOnly, s); err == nil {
		return true
	}
	_, err := time.Parse(time.RFC3339, s)
	return err == nil
}

// ListPayments reads one page of payments, newest first.
func (c *Client) ListPayments(ctx context.Context, p ListPaymentsParams) (*PaymentList, error) {
	return c.listPayments(ctx, p, false)
}

// SearchPayments reads a page of the payments list as ListPayments does,
// but is sent even in a dry run: it is the read that finds the payment a
// move names by its order number (order:REF), which the dry run must find
// to show the one request the move would send. --debug logs it.
func (c *Client) SearchPayments(ctx context.Context, p ListPaymentsParams) (*PaymentList, error) {
	return c.listPayments(ctx, p, true)
}

func (c *Client) listPayments(ctx context.Context, p ListPaymentsParams, sendInDryRun bool) (*PaymentList, error) {
	q, err := p.query()
	if err != nil {
		return nil, err
	}
	cl := &call{method: http.MethodGet, path: "/api/v2/payments", op: "GET /api/v2/payments", query: q, policy: retrySafe, sendInDryRun: sendInDryRun}
	var l PaymentList
	if err := c.doJSON(ctx, cl, &l); err != nil {
		return nil, err
	}
	if l.Payments == nil {
		l.Payments = []Payment{}
	}
	return &l, nil
}

func paymentPath(id string) string { return "/api/v2/payments/" + url.PathEscape(id) }

// GetPayment reads a payment with its captures and refunds.
func (c *Client) GetPayment(ctx context.Context, id string) (*Payment, error) {
	if err := validID("payment id", id); err != nil {
		return nil, err
	}
	cl := &call{method: http.MethodGet, path: paymentPath(id), op: "GET /api/v2/payments/{id}", policy: retrySafe}
	var p Payment
	if err := c.doJSON(ctx, cl, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// UpdatePayment sets the order reference_id of a payment, the one field
// the service lets a merchant change. Setting a value is idempotent, so
// the PUT is retried like a read.
func (c *Client) UpdatePayment(ctx context.Context, id, referenceID string) (*Payment, error) {
	v := &ValidationError{}
	checkID(v, "payment id", id)
	if strings.TrimSpace(referenceID) == "" {
		v.Add("$.order.reference_id", "must not be empty")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	var body UpdatePaymentRequest
	body.Order.ReferenceID = referenceID
	cl, err := newJSONCall(http.MethodPut, paymentPath(id), "/api/v2/payments/{id}", body, retrySafe)
	if err != nil {
		return nil, err
	}
	var p Payment
	if err := c.doJSON(ctx, cl, &p); err != nil {
		return nil, err
	}
	return &p, nil
}
