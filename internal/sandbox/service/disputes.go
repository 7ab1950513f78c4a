package service

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/wire"
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
