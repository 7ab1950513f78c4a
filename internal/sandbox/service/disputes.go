package service

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/wire"
	"github.com/shopspring/decimal"
)

// Disputes. The service's customer opens them (here: `bnpl sandbox
// dispute open`, POST /_sandbox/payments/{id}/dispute) on a live CLOSED
// payment with captures; the merchant answers through the API; the
// service's support closes them (here: `bnpl sandbox dispute resolve`).
//
// States (our reading of the statuses the service is known to use):
//
//	new                 opened by the customer; the merchant has 14 days
//	  provide-evidence  -> in_progress
//	  challenge         -> in_progress
//	  approve           -> refunded (the disputed amount is refunded)
//	evidence_merchant   support asks the merchant for (more) evidence
//	  provide-evidence  -> in_progress
//	  approve           -> refunded
//	evidence_customer   support waits for the customer; approve -> refunded
//	in_progress         support reviews;                approve -> refunded
//	declined, cancelled, refunded are final.
//
// Support's moves (resolve) go from any open state to any other state but
// new, refunded recording the refund. While a dispute is open, refunds of
// its payment are refused with 409 "payment is disputed".

const (
	// disputeLifetime sets expired_at: the merchant's deadline to answer.
	disputeLifetime = 14 * 24 * time.Hour
	// disputePageSize is small so that paging is easy to try.
	disputePageSize = 10

	StatusNew              = "new"
	statusInProgress       = "in_progress"
	statusEvidenceMerchant = "evidence_merchant"
	StatusRefunded         = "refunded"
)

var FinalDisputeStatuses = map[string]bool{"declined": true, "cancelled": true, "refunded": true}

var (
	errDisputeNotFound = &edge.Refusal{Status: 404, ErrorType: "not_found", Message: "dispute not found"}
	errDisputeDecode   = edge.BadData("failed to decode request")
	errDisputeConflict = &edge.Refusal{Status: 409, ErrorType: "conflict"}
	errPaymentDisputed = &edge.Refusal{Status: 409, ErrorType: "conflict", Message: "payment is disputed"}
)

type DisputeItem struct {
	ReferenceID string `json:"reference_id"`
	Title       string `json:"title"`
	UnitPrice   string `json:"unit_price"`
}

type DisputeEvent struct {
	Attachments []string  `json:"attachments"`
	CreatedAt   time.Time `json:"created_at"`
	CreatedBy   string    `json:"created_by"`
	Content     string    `json:"content"`
	Source      string    `json:"source"`
	EventType   string    `json:"event_type"`
	Note        string    `json:"note,omitempty"`
}

// disputeView is a dispute as the API answers it; the list leaves out
// history.
type disputeView struct {
	ID          string         `json:"id"`
	Attachments []string       `json:"attachments"`
	PaymentID   string         `json:"payment_id"`
	Amount      string         `json:"amount"`
	Currency    string         `json:"currency"`
	CreatedAt   time.Time      `json:"created_at"`
	ExpiredAt   time.Time      `json:"expired_at"`
	Status      string         `json:"status"`
	Reason      string         `json:"reason"`
	DaysLeft    int            `json:"days_left"`
	Items       []DisputeItem  `json:"items"`
	OrderNumber string         `json:"order_number"`
	Comment     string         `json:"comment"`
	History     []DisputeEvent `json:"history,omitempty"`
}

// DisputeDoc is what the state keeps per dispute.
type DisputeDoc struct {
	disputeView
	MerchantCode    string `json:"merchant_code"`
	ChallengeReason string `json:"challenge_reason,omitempty"`
	ChallengeAmount string `json:"challenge_amount,omitempty"`
}

// View answers the dispute as read at now: days_left counts the days (a
// started one counts) to expired_at, 0 once it passed or the dispute is
// resolved.
func (d *DisputeDoc) View(now time.Time, history bool) disputeView {
	v := d.disputeView
	v.DaysLeft = 0
	if rem := d.ExpiredAt.Sub(now); rem > 0 && !FinalDisputeStatuses[d.Status] {
		v.DaysLeft = int(math.Ceil(float64(rem) / float64(24*time.Hour)))
	}
	if !history {
		v.History = nil
	}
	return v
}

// notification is what the webhooks of the dispute's merchant are sent
// when its status changes.
func (d *DisputeDoc) notification() wire.DisputeNotification {
	n := wire.DisputeNotification{Status: d.Status, DisputeID: d.ID, PaymentID: d.PaymentID,
		Amount: d.Amount, Currency: d.Currency}
	created := d.CreatedAt
	n.CreatedAt = &created
	return n
}

func (d *DisputeDoc) addEvent(e DisputeEvent) {
	if e.Attachments == nil {
		e.Attachments = []string{}
	}
	d.History = append(d.History, e)
	for _, a := range e.Attachments {
		if !slices.Contains(d.Attachments, a) {
			d.Attachments = append(d.Attachments, a)
		}
	}
}

func (d *DisputeDoc) toAPI(now time.Time) (*wire.Dispute, error) {
	b, err := json.Marshal(d.View(now, true))
	if err != nil {
		return nil, err
	}
	var out wire.Dispute
	return &out, json.Unmarshal(b, &out)
}

// LoadDispute reads a dispute of merchant ("" = of anyone).
func LoadDispute(ctx context.Context, q store.Querier, id, merchant string) (*DisputeDoc, error) {
	var doc []byte
	var err error
	if merchant == "" {
		err = q.QueryRowContext(ctx, `SELECT doc FROM disputes WHERE id = ?`, id).Scan(&doc)
	} else {
		err = q.QueryRowContext(ctx, `SELECT doc FROM disputes WHERE id = ? AND merchant_code = ?`, id, merchant).Scan(&doc)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errDisputeNotFound
	}
	if err != nil {
		return nil, err
	}
	var d DisputeDoc
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, store.CorruptRow("disputes", "id", id, err)
	}
	return &d, nil
}

func saveDispute(ctx context.Context, q store.Querier, d *DisputeDoc, insert bool) error {
	doc, err := json.Marshal(d)
	if err != nil {
		return err
	}
	if insert {
		_, err = q.ExecContext(ctx, `INSERT INTO disputes (id, merchant_code, payment_id, status, created_at, doc) VALUES (?, ?, ?, ?, ?, ?)`,
			d.ID, d.MerchantCode, d.PaymentID, d.Status, d.CreatedAt.UnixNano(), doc)
	} else {
		_, err = q.ExecContext(ctx, `UPDATE disputes SET status = ?, doc = ? WHERE id = ?`, d.Status, doc, d.ID)
	}
	return err
}

// disputeRefundGuard refuses refunds of a payment with an open dispute. It
// runs inside the refund's transaction.
func (s *Service) disputeRefundGuard(rec *store.Record) error {
	var q store.Querier = s.DB
	if rec.Tx != nil {
		q = rec.Tx
	}
	var n int
	err := q.QueryRowContext(context.Background(), `SELECT count(*) FROM disputes WHERE payment_id = ?
		AND status NOT IN ('declined', 'cancelled', 'refunded')`, rec.Payment.ID).Scan(&n)
	if err != nil {
		return err
	}
	if n > 0 {
		return errPaymentDisputed
	}
	return nil
}

// changeDispute applies fn to a dispute in one write transaction, and
// notifies dispute webhooks when the status changed.
func (s *Service) changeDispute(ctx context.Context, id, merchant string, fn func(d *DisputeDoc, now time.Time) error) (*DisputeDoc, error) {
	now, err := s.CurrentTime(ctx) // before the transaction: in memory it takes the only connection
	if err != nil {
		return nil, err
	}
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	d, err := LoadDispute(ctx, tx, id, merchant)
	if err != nil {
		return nil, err
	}
	before := d.Status
	if err := fn(d, now); err != nil {
		return nil, err
	}
	if err := saveDispute(ctx, tx, d, false); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	if d.Status != before {
		s.Outbox.DisputeChanged(d.notification(), d.MerchantCode)
	}
	return d, nil
}

// refundDispute settles a dispute in the customer's favour: the disputed
// amount (at most what is still refundable) is refunded on the payment and
// the dispute becomes refunded, both in the payment's move. Approving a
// dispute already refunded changes nothing.
func (s *Service) refundDispute(ctx context.Context, id, merchant string, event DisputeEvent) (*DisputeDoc, error) {
	d, err := LoadDispute(ctx, s.DB, id, merchant)
	if err != nil {
		return nil, err
	}
	var out *DisputeDoc
	changed := false
	qctx := context.WithoutCancel(ctx)
	_, err = s.Move(ctx, d.PaymentID, nil, func(rec *store.Record, now time.Time) (string, error) {
		cur, err := LoadDispute(qctx, rec.Tx, id, merchant)
		if err != nil {
			return "", err
		}
		out = cur
		if cur.Status == StatusRefunded {
			return "", nil
		}
		if FinalDisputeStatuses[cur.Status] {
			return "", errDisputeConflict
		}
		p := &rec.Payment
		amount, err := decimal.NewFromString(cur.Amount)
		if err != nil {
			return "", fmt.Errorf("corrupt dispute amount %q", cur.Amount)
		}
		if refundable := p.Captured().Sub(p.Refunded()); amount.GreaterThan(refundable) {
			amount = refundable
		}
		event.CreatedAt = now
		cur.Status = StatusRefunded
		cur.addEvent(event)
		if err := saveDispute(qctx, rec.Tx, cur, false); err != nil {
			return "", err
		}
		changed = true
		if !amount.IsPositive() {
			return "", nil
		}
		at := now
		p.Refunds = append(p.Refunds, wire.Refund{ID: s.NewID(ctx), Amount: amount, ReferenceID: "dispute-" + cur.ID,
			Reason: "dispute " + cur.ID + " refunded", CreatedAt: &at})
		return "refunded", nil
	})
	if err != nil {
		return nil, err
	}
	if changed {
		s.Outbox.DisputeChanged(out.notification(), out.MerchantCode)
	}
	return out, nil
}

// OpenDisputeDoc is the customer opening a dispute on a live payment.
func (s *Service) OpenDisputeDoc(ctx context.Context, paymentID, reason string, amountText *string, comment string) (*DisputeDoc, error) {
	paymentID, ok := edge.CanonicalID(paymentID)
	if !ok {
		return nil, edge.ErrInvalidID
	}
	if reason == "" {
		reason = "product_issue"
	}
	if !slices.Contains(wire.DisputeReasons, reason) {
		return nil, edge.BadData(fmt.Sprintf("reason %q is not one of %s", reason, strings.Join(wire.DisputeReasons, ", ")))
	}
	var out *DisputeDoc
	qctx := context.WithoutCancel(ctx)
	_, err := s.Move(ctx, paymentID, nil, func(rec *store.Record, now time.Time) (string, error) {
		p := &rec.Payment
		if p.IsTest {
			return "", edge.BadData("disputes have no test mode: open one on a live payment (one created with a live key)")
		}
		if p.Status != wire.StatusClosed || len(p.Captures) == 0 {
			return "", edge.BadData(fmt.Sprintf("only CLOSED payments with captures can be disputed; this one is %s with %d capture(s)", p.Status, len(p.Captures)))
		}
		refundable := p.Captured().Sub(p.Refunded())
		if !refundable.IsPositive() {
			return "", edge.BadData("nothing is left to dispute: everything captured was refunded")
		}
		amount := refundable
		if amountText != nil {
			d, why := ParseAmount(*amountText, p.Currency)
			if why == "" && !d.IsPositive() {
				why = "the amount must be positive"
			}
			if why != "" {
				return "", edge.BadData("invalid amount: " + why)
			}
			if d.GreaterThan(refundable) {
				return "", edge.BadData(fmt.Sprintf("the amount %s is more than captured minus refunded, %s",
					money.Format(d, p.Currency), money.Format(refundable, p.Currency)))
			}
			amount = d
		}
		d := &DisputeDoc{MerchantCode: rec.MerchantCode}
		d.ID = s.NewID(ctx)
		d.PaymentID = p.ID
		d.Amount = money.Format(amount, p.Currency)
		d.Currency = p.Currency
		d.CreatedAt = now
		d.ExpiredAt = now.Add(disputeLifetime)
		d.Status = StatusNew
		d.Reason = reason
		d.Attachments = []string{}
		d.Items = []DisputeItem{}
		d.Comment = comment
		if p.Order != nil {
			d.OrderNumber = p.Order.ReferenceID
			for _, it := range p.Order.Items {
				d.Items = append(d.Items, DisputeItem{ReferenceID: it.ReferenceID, Title: it.Title,
					UnitPrice: money.Format(it.UnitPrice, p.Currency)})
			}
		}
		by := "customer"
		if p.Buyer != nil && p.Buyer.Email != "" {
			by = p.Buyer.Email
		}
		d.addEvent(DisputeEvent{CreatedAt: now, CreatedBy: by, Content: comment, Source: "customer",
			EventType: "dispute_created", Note: "reason: " + reason})
		if err := saveDispute(qctx, rec.Tx, d, true); err != nil {
			return "", err
		}
		out = d
		return "", nil // the payment itself does not change
	})
	if err != nil {
		return nil, err
	}
	s.Outbox.DisputeChanged(out.notification(), out.MerchantCode)
	return out, nil
}

// OpenDispute opens a dispute as the customer would, on a live CLOSED
// payment with captures. reason "" is product_issue; amount "" is what
// was captured and not refunded.
func (s *Service) OpenDispute(ctx context.Context, paymentID, reason, amount string) (*wire.Dispute, error) {
	var amt *string
	if amount != "" {
		amt = &amount
	}
	d, err := s.OpenDisputeDoc(ctx, paymentID, reason, amt, "")
	if err != nil {
		return nil, err
	}
	now, err := s.CurrentTime(ctx)
	if err != nil {
		return nil, err
	}
	return d.toAPI(now)
}

// ResolveDispute moves a dispute as the service's support would: to a
// final status (declined, cancelled, refunded, which refunds the disputed
// amount) or to another open one (in_progress, evidence_merchant,
// evidence_customer).
func (s *Service) ResolveDispute(ctx context.Context, id, status string) (*wire.Dispute, error) {
	d, err := s.ResolveDisputeDoc(ctx, id, status)
	if err != nil {
		return nil, err
	}
	now, err := s.CurrentTime(ctx)
	if err != nil {
		return nil, err
	}
	return d.toAPI(now)
}

func (s *Service) ResolveDisputeDoc(ctx context.Context, id, status string) (*DisputeDoc, error) {
	id, ok := edge.CanonicalID(id)
	if !ok {
		return nil, edge.BadData("invalid dispute id")
	}
	if status == StatusNew || !slices.Contains(wire.DisputeStatuses, status) {
		return nil, edge.BadData(fmt.Sprintf("status %q: use one of declined, cancelled, refunded (final) or in_progress, evidence_merchant, evidence_customer", status))
	}
	event := DisputeEvent{CreatedBy: "support", Source: "support", EventType: "status_changed",
		Content: "support moved the dispute to " + status}
	if status == StatusRefunded {
		return s.refundDispute(ctx, id, "", event)
	}
	return s.changeDispute(ctx, id, "", func(d *DisputeDoc, now time.Time) error {
		if FinalDisputeStatuses[d.Status] {
			return &edge.Refusal{Status: 409, ErrorType: "conflict", Message: fmt.Sprintf("the dispute is already resolved (%s)", d.Status)}
		}
		if d.Status == status {
			return nil
		}
		d.Status = status
		event.CreatedAt = now
		d.addEvent(event)
		return nil
	})
}

func (s *Service) disputeRoutes(mux *http.ServeMux, region string) {
	mux.HandleFunc("GET /api/v1/disputes", s.liveOnly(region, authGeneral, s.handleListDisputes))
	mux.HandleFunc("GET /api/v1/disputes/{id}", s.liveOnly(region, authGeneral, s.handleGetDispute))
	mux.HandleFunc("POST /api/v1/disputes/{id}/provide-evidence", s.liveOnly(region, authGeneral, s.handleProvideEvidence))
	mux.HandleFunc("POST /api/v1/disputes/approve", s.liveOnly(region, authGeneral, s.handleApproveDisputes))
	mux.HandleFunc("POST /api/v1/disputes/challenge", s.liveOnly(region, authGeneral, s.handleChallengeDispute))
	mux.HandleFunc("POST /api/v1/disputes/attachments/upload", s.liveOnly(region, authGeneral, s.handleUploadAttachment))

}

// decodeStrict reads a JSON body into v; an empty or malformed one is
// errDisputeDecode.
func decodeDisputeBody(r *http.Request, v any) error {
	body, err := edge.ReadBody(r)
	if err != nil {
		return edge.BodyRefusal(err, errDisputeDecode)
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return errDisputeDecode
	}
	if err := json.Unmarshal(body, v); err != nil {
		return errDisputeDecode
	}
	return nil
}

func (s *Service) WriteDispute(w http.ResponseWriter, r *http.Request, d *DisputeDoc, wrap bool) {
	now, err := s.CurrentTime(r.Context())
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	if wrap {
		edge.WriteJSON(w, http.StatusOK, map[string]any{"dispute": d.View(now, true)})
		return
	}
	edge.WriteJSON(w, http.StatusOK, d.View(now, true))
}

func (s *Service) handleGetDispute(w http.ResponseWriter, r *http.Request, c caller) {
	id, ok := edge.CanonicalID(r.PathValue("id"))
	if !ok {
		edge.WriteError(w, errDisputeDecode)
		return
	}
	d, err := LoadDispute(r.Context(), s.DB, id, c.merchant.Code)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	s.WriteDispute(w, r, d, true)
}

// Page tokens are opaque to clients: the position of the last dispute of
// the page, newest first.
func encodePageToken(createdAt, seq int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("v1:%d:%d", createdAt, seq)))
}

func decodePageToken(tok string) (createdAt, seq int64, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return 0, 0, false
	}
	parts := strings.Split(string(b), ":")
	if len(parts) != 3 || parts[0] != "v1" {
		return 0, 0, false
	}
	createdAt, err1 := strconv.ParseInt(parts[1], 10, 64)
	seq, err2 := strconv.ParseInt(parts[2], 10, 64)
	return createdAt, seq, err1 == nil && err2 == nil
}

func (s *Service) handleListDisputes(w http.ResponseWriter, r *http.Request, c caller) {
	q := r.URL.Query()
	conds := []string{"merchant_code = ?"}
	args := []any{c.merchant.Code}
	if statuses := q["statuses"]; len(statuses) > 0 {
		marks := make([]string, 0, len(statuses))
		for _, st := range statuses {
			if !slices.Contains(wire.DisputeStatuses, st) {
				edge.WriteError(w, errDisputeDecode)
				return
			}
			marks = append(marks, "?")
			args = append(args, st)
		}
		conds = append(conds, "status IN ("+strings.Join(marks, ", ")+")")
	}
	for _, b := range []struct{ name, op string }{{"created_at_gte", ">="}, {"created_at_lte", "<="}} {
		if v := q.Get(b.name); v != "" {
			t, ok := ParseListTime(v)
			if !ok {
				edge.WriteError(w, errDisputeDecode)
				return
			}
			conds = append(conds, "created_at "+b.op+" ?")
			args = append(args, store.NanosBound(t))
		}
	}
	if tok := q.Get("page_token"); tok != "" {
		at, seq, ok := decodePageToken(tok)
		if !ok {
			edge.WriteError(w, errDisputeDecode)
			return
		}
		conds = append(conds, "(created_at < ? OR (created_at = ? AND seq < ?))")
		args = append(args, at, at, seq)
	}
	now, err := s.CurrentTime(r.Context())
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	rows, err := s.DB.QueryContext(r.Context(), `SELECT seq, created_at, doc FROM disputes WHERE `+strings.Join(conds, " AND ")+
		` ORDER BY created_at DESC, seq DESC LIMIT ?`, append(args, disputePageSize+1)...)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	defer rows.Close()
	list := []disputeView{}
	next := ""
	var lastAt, lastSeq int64
	for rows.Next() {
		var seq, at int64
		var doc []byte
		if err := rows.Scan(&seq, &at, &doc); err != nil {
			edge.WriteError(w, err)
			return
		}
		if len(list) == disputePageSize {
			next = encodePageToken(lastAt, lastSeq)
			break
		}
		var d DisputeDoc
		if err := json.Unmarshal(doc, &d); err != nil {
			edge.WriteError(w, store.CorruptRow("disputes", "seq", strconv.FormatInt(seq, 10), err))
			return
		}
		list = append(list, d.View(now, false))
		lastAt, lastSeq = at, seq
	}
	if err := rows.Err(); err != nil {
		edge.WriteError(w, err)
		return
	}
	edge.WriteJSON(w, http.StatusOK, struct {
		Disputes      []disputeView `json:"disputes"`
		NextPageToken string        `json:"next_page_token"`
	}{list, next})
}

// checkAttachments refuses more than five ids, or ids the merchant did not
// upload, as a request it cannot decode.
func (s *Service) checkAttachments(ctx context.Context, merchant string, ids []string) error {
	if len(ids) > wire.MaxEvidenceAttachments {
		return errDisputeDecode
	}
	ok, err := checkAttachmentIDs(ctx, s.DB, merchant, ids)
	if err != nil {
		return err
	}
	if !ok {
		return errDisputeDecode
	}
	return nil
}

func (s *Service) handleProvideEvidence(w http.ResponseWriter, r *http.Request, c caller) {
	id, ok := edge.CanonicalID(r.PathValue("id"))
	if !ok {
		edge.WriteError(w, errDisputeDecode)
		return
	}
	var req struct {
		Content       string   `json:"content"`
		AttachmentIDs []string `json:"attachment_ids"`
	}
	if err := decodeDisputeBody(r, &req); err != nil {
		edge.WriteError(w, err)
		return
	}
	if strings.TrimSpace(req.Content) == "" || len(req.AttachmentIDs) > wire.MaxEvidenceAttachments {
		edge.WriteError(w, errDisputeDecode)
		return
	}
	if _, err := LoadDispute(r.Context(), s.DB, id, c.merchant.Code); err != nil {
		edge.WriteError(w, err)
		return
	}
	if err := s.checkAttachments(r.Context(), c.merchant.Code, req.AttachmentIDs); err != nil {
		edge.WriteError(w, err)
		return
	}
	ids := canonicalIDs(req.AttachmentIDs) // checked by checkAttachments above
	var at time.Time
	_, err := s.changeDispute(r.Context(), id, c.merchant.Code, func(d *DisputeDoc, now time.Time) error {
		// Evidence answers a request for it: a new dispute, or support
		// asking again. Once given, it waits for support's review.
		if d.Status != StatusNew && d.Status != statusEvidenceMerchant {
			return errDisputeConflict
		}
		at = now
		d.Status = statusInProgress
		d.addEvent(DisputeEvent{Attachments: ids, CreatedAt: now, CreatedBy: "merchant", Content: req.Content,
			Source: "merchant", EventType: "evidence_provided"})
		return nil
	})
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	edge.WriteJSON(w, http.StatusOK, wire.Evidence{ID: s.NewID(r.Context()), DisputeID: id, Content: req.Content,
		CreatedBy: "merchant", CreatedAt: &at, AttachmentIDs: ids})
}

func (s *Service) handleApproveDisputes(w http.ResponseWriter, r *http.Request, c caller) {
	var req struct {
		DisputeIDs []string `json:"dispute_ids"`
	}
	if err := decodeDisputeBody(r, &req); err != nil {
		edge.WriteError(w, err)
		return
	}
	if len(req.DisputeIDs) == 0 || len(req.DisputeIDs) > wire.MaxApproveIDs {
		edge.WriteError(w, errDisputeDecode)
		return
	}
	var ids []string
	for _, raw := range req.DisputeIDs {
		// Lower case before the duplicate check too, so one dispute named
		// twice in different cases is approved once.
		id, ok := edge.CanonicalID(raw)
		if !ok {
			edge.WriteError(w, errDisputeDecode)
			return
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	// Every id is checked before any is approved, so a refused request
	// changes nothing (barring a race with another writer).
	for _, id := range ids {
		d, err := LoadDispute(r.Context(), s.DB, id, c.merchant.Code)
		if err != nil {
			edge.WriteError(w, err)
			return
		}
		if FinalDisputeStatuses[d.Status] && d.Status != StatusRefunded {
			edge.WriteError(w, errDisputeConflict)
			return
		}
	}
	now, err := s.CurrentTime(r.Context())
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	out := make([]disputeView, 0, len(ids))
	for _, id := range ids {
		d, err := s.refundDispute(r.Context(), id, c.merchant.Code, DisputeEvent{CreatedBy: "merchant", Source: "merchant",
			EventType: "dispute_approved", Content: "the merchant accepted the dispute"})
		if err != nil {
			edge.WriteError(w, err)
			return
		}
		out = append(out, d.View(now, false))
	}
	edge.WriteJSON(w, http.StatusOK, map[string]any{"disputes": out})
}

func (s *Service) handleChallengeDispute(w http.ResponseWriter, r *http.Request, c caller) {
	var req struct {
		DisputeID     string          `json:"dispute_id"`
		Description   string          `json:"description"`
		Reason        string          `json:"reason"`
		Amount        json.RawMessage `json:"amount"`
		AttachmentIDs []string        `json:"attachment_ids"`
	}
	if err := decodeDisputeBody(r, &req); err != nil {
		edge.WriteError(w, err)
		return
	}
	amountText, hasAmount, amountWhy := RawAmount(req.Amount)
	disputeID, idOK := edge.CanonicalID(req.DisputeID)
	switch {
	case !idOK, amountWhy != "", strings.TrimSpace(req.Description) == "",
		!slices.Contains(wire.ChallengeReasons, req.Reason),
		req.Reason == wire.ChallengeReasonAmount && !hasAmount,
		len(req.AttachmentIDs) > wire.MaxEvidenceAttachments:
		edge.WriteError(w, errDisputeDecode)
		return
	}
	cur, err := LoadDispute(r.Context(), s.DB, disputeID, c.merchant.Code)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	var amount string
	if hasAmount {
		d, why := ParseAmount(amountText, cur.Currency)
		disputed, _ := decimal.NewFromString(cur.Amount)
		if why != "" || !d.IsPositive() || d.GreaterThan(disputed) {
			edge.WriteError(w, errDisputeDecode)
			return
		}
		amount = money.Format(d, cur.Currency)
	}
	if err := s.checkAttachments(r.Context(), c.merchant.Code, req.AttachmentIDs); err != nil {
		edge.WriteError(w, err)
		return
	}
	ids := canonicalIDs(req.AttachmentIDs) // checked by checkAttachments above
	d, err := s.changeDispute(r.Context(), disputeID, c.merchant.Code, func(d *DisputeDoc, now time.Time) error {
		// Only a new dispute can be challenged (the published
		// description says so); other states answer 409, our choice.
		if d.Status != StatusNew {
			return errDisputeConflict
		}
		d.Status = statusInProgress
		d.ChallengeReason, d.ChallengeAmount = req.Reason, amount
		note := "reason: " + req.Reason
		if amount != "" {
			note += ", amount: " + amount
		}
		d.addEvent(DisputeEvent{Attachments: ids, CreatedAt: now, CreatedBy: "merchant", Content: req.Description,
			Source: "merchant", EventType: "dispute_challenged", Note: note})
		return nil
	})
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	now, err := s.CurrentTime(r.Context())
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	edge.WriteJSON(w, http.StatusOK, map[string]any{"disputes": []disputeView{d.View(now, false)}})
}
