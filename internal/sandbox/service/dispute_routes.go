package service

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/wire"
)

// The dispute endpoints (their routes), and those a merchant reads: one
// dispute, and the list.

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
