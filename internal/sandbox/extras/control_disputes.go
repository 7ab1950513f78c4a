package extras

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/service"
)

// The customer's and support's side of a dispute, as control endpoints.

func (s *Local) handleControlOpenDispute(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Reason  string          `json:"reason"`
		Amount  json.RawMessage `json:"amount"`
		Comment string          `json:"comment"`
	}
	body, err := edge.ReadBody(r)
	if err != nil {
		edge.WriteError(w, edge.BodyRefusal(err, edge.BadData("failed to decode request")))
		return
	}
	if len(strings.TrimSpace(string(body))) > 0 {
		if err := json.Unmarshal(body, &req); err != nil {
			edge.WriteError(w, edge.BadData("failed to decode request"))
			return
		}
	}
	var amount *string
	if text, ok, why := service.RawAmount(req.Amount); why != "" {
		edge.WriteError(w, edge.BadData("invalid amount: "+why))
		return
	} else if ok {
		amount = &text
	}
	d, err := s.OpenDisputeDoc(r.Context(), r.PathValue("id"), req.Reason, amount, req.Comment)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	s.WriteDispute(w, r, d, false)
}

func (s *Local) handleControlResolveDispute(w http.ResponseWriter, r *http.Request) {
	status := r.URL.Query().Get("status")
	if status == "" {
		var req struct {
			Status string `json:"status"`
		}
		body, err := edge.ReadBody(r)
		if err != nil {
			edge.WriteError(w, edge.BodyRefusal(err, edge.BadData("failed to decode request")))
			return
		}
		if json.Unmarshal(body, &req) != nil {
			edge.WriteError(w, edge.BadData("failed to decode request: send {\"status\": ...} or ?status="))
			return
		}
		status = req.Status
	}
	d, err := s.ResolveDisputeDoc(r.Context(), r.PathValue("id"), status)
	if err != nil {
		edge.WriteError(w, err)
		return
	}
	s.WriteDispute(w, r, d, false)
}
