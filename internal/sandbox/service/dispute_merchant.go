package service

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/wire"
	"github.com/shopspring/decimal"
)

// The merchant's moves of a dispute: evidence, approval, challenge.

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
