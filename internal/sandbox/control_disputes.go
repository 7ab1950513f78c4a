package sandbox

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The customer's and support's side of a dispute, as control endpoints.

func (s *Local) handleControlOpenDispute(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Reason  string          `json:"reason"`
		Amount  json.RawMessage `json:"amount"`
		Comment string          `json:"comment"`
	}
	body, err := readBody(r)
	if err != nil {
		writeError(w, bodyRefusal(err, badData("failed to decode request")))
		return
	}
	if len(strings.TrimSpace(string(body))) > 0 {
		if err := json.Unmarshal(body, &req); err != nil {
			writeError(w, badData("failed to decode request"))
			return
		}
	}
	var amount *string
	if text, ok := rawAmount(req.Amount); ok {
		amount = &text
	}
	d, err := s.openDispute(r.Context(), r.PathValue("id"), req.Reason, amount, req.Comment)
	if err != nil {
		writeError(w, err)
		return
	}
	s.writeDispute(w, r, d, false)
}

func (s *Local) handleControlResolveDispute(w http.ResponseWriter, r *http.Request) {
	status := r.URL.Query().Get("status")
	if status == "" {
		var req struct {
			Status string `json:"status"`
		}
		body, err := readBody(r)
		if err != nil {
			writeError(w, bodyRefusal(err, badData("failed to decode request")))
			return
		}
		if json.Unmarshal(body, &req) != nil {
			writeError(w, badData("failed to decode request: send {\"status\": ...} or ?status="))
			return
		}
		status = req.Status
	}
	d, err := s.resolveDispute(r.Context(), r.PathValue("id"), status)
	if err != nil {
		writeError(w, err)
		return
	}
	s.writeDispute(w, r, d, false)
}
