package sandbox

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/secret"
	"github.com/bnpl-cli/bnpl/internal/webhook"
	"github.com/bnpl-cli/bnpl/internal/wire"
	"github.com/google/uuid"
)

// Payment webhooks (/api/v1/webhooks) and what both webhook families
// share: the table, the URL rules and the header rules. The rules are
// internal/webhook's, which the CLI applies before sending, so the two
// agree on what is refused and on the normalised form.

// maxPaymentWebhooks is our choice: the service does not publish its limit.
const maxPaymentWebhooks = 5

// migrationDisputesWebhooks is the schema of disputes.go, attachments.go,
// webhooks.go and delivery.go. Dispute docs hold the dispute as the API
// shows it plus its history; the columns serve lookups and paging.
const migrationDisputesWebhooks = `
	CREATE TABLE disputes (
		seq           INTEGER PRIMARY KEY AUTOINCREMENT,
		id            TEXT NOT NULL UNIQUE,
		merchant_code TEXT NOT NULL,
		payment_id    TEXT NOT NULL,
		status        TEXT NOT NULL,
		created_at    INTEGER NOT NULL,
		doc           BLOB NOT NULL
	);
	CREATE INDEX disputes_by_merchant ON disputes (merchant_code, created_at DESC, seq DESC);
	CREATE INDEX disputes_by_payment ON disputes (payment_id, status);
	CREATE TABLE dispute_attachments (
		id            TEXT PRIMARY KEY,
		merchant_code TEXT NOT NULL,
		content_type  TEXT NOT NULL,
		size          INTEGER NOT NULL,
		sha256        TEXT NOT NULL,
		data          BLOB NOT NULL,
		created_at    INTEGER NOT NULL
	);
	CREATE TABLE webhooks (
		seq           INTEGER PRIMARY KEY AUTOINCREMENT,
		id            TEXT NOT NULL UNIQUE,
		kind          TEXT NOT NULL,
		merchant_code TEXT NOT NULL,
		is_test       INTEGER NOT NULL,
		url           TEXT NOT NULL,
		header_title  TEXT,
		header_value  TEXT,
		created_at    INTEGER NOT NULL,
		UNIQUE (kind, merchant_code, is_test, url)
	);
	CREATE TABLE deliveries (
		seq           INTEGER PRIMARY KEY AUTOINCREMENT,
		id            TEXT NOT NULL UNIQUE,
		kind          TEXT NOT NULL,
		webhook_id    TEXT NOT NULL,
		merchant_code TEXT NOT NULL,
		is_test       INTEGER NOT NULL,
		url           TEXT NOT NULL,
		event         TEXT NOT NULL,
		subject_id    TEXT NOT NULL,
		payload       BLOB NOT NULL,
		attempts      INTEGER NOT NULL,
		status        TEXT NOT NULL,
		http_status   INTEGER NOT NULL,
		error         TEXT NOT NULL,
		created_at    INTEGER NOT NULL,
		updated_at    INTEGER NOT NULL
	);
	CREATE INDEX deliveries_by_subject ON deliveries (subject_id);`

// hookRow is a registered webhook of either family. Header holds the
// value in clear: it is needed on the wire, and masked on every answer.
type hookRow struct {
	ID           string
	Kind         string
	MerchantCode string
	IsTest       bool
	URL          string
	Header       *wire.WebhookHeader
}

func (h *hookRow) maskedHeader() *wire.WebhookHeader {
	if h.Header == nil {
		return nil
	}
	return &wire.WebhookHeader{Title: h.Header.Title, Value: secret.MaskValue(h.Header.Value)}
}

// paymentHookView is a payment webhook as the API answers it.
type paymentHookView struct {
	ID     string              `json:"id"`
	URL    string              `json:"url"`
	IsTest bool                `json:"is_test"`
	Header *wire.WebhookHeader `json:"header"`
}

func (h *hookRow) paymentView() paymentHookView {
	return paymentHookView{ID: h.ID, URL: h.URL, IsTest: h.IsTest, Header: h.maskedHeader()}
}

const hookColumns = `id, kind, merchant_code, is_test, url, header_title, header_value`

func scanHook(sc interface{ Scan(...any) error }) (*hookRow, error) {
	var h hookRow
	var title, value sql.NullString
	if err := sc.Scan(&h.ID, &h.Kind, &h.MerchantCode, &h.IsTest, &h.URL, &title, &value); err != nil {
		return nil, err
	}
	if title.Valid {
		h.Header = &wire.WebhookHeader{Title: title.String, Value: value.String}
	}
	return &h, nil
}

func listHooks(ctx context.Context, q querier, kind, merchant string, isTest bool) ([]*hookRow, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+hookColumns+` FROM webhooks WHERE kind = ? AND merchant_code = ? AND is_test = ?
		ORDER BY seq`, kind, merchant, isTest)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*hookRow
	for rows.Next() {
		h, err := scanHook(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

var (
	errHookNotFound = errors.New("webhook not found")
	errHookExists   = errors.New("webhook already exists")
	errHookMax      = errors.New("max number of webhooks reached")
)

func getHook(ctx context.Context, q querier, kind, merchant string, isTest bool, id string) (*hookRow, error) {
	h, err := scanHook(q.QueryRowContext(ctx, `SELECT `+hookColumns+` FROM webhooks
		WHERE id = ? AND kind = ? AND merchant_code = ? AND is_test = ?`, id, kind, merchant, isTest))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errHookNotFound
	}
	return h, err
}

// saveHook creates h (replace false) or replaces the webhook with h's id,
// in one write transaction so that the limit and the uniqueness hold
// under concurrent requests.
func (s *Service) saveHook(ctx context.Context, h *hookRow, max int, replace bool) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	hooks, err := listHooks(ctx, tx, h.Kind, h.MerchantCode, h.IsTest)
	if err != nil {
		return err
	}
	found := false
	for _, o := range hooks {
		found = found || o.ID == h.ID
	}
	if replace && !found {
		return errHookNotFound
	}
	for _, o := range hooks {
		if o.ID != h.ID && o.URL == h.URL {
			return errHookExists
		}
	}
	var title, value any
	if h.Header != nil {
		title, value = h.Header.Title, h.Header.Value
	}
	if replace {
		_, err = tx.ExecContext(ctx, `UPDATE webhooks SET url = ?, header_title = ?, header_value = ? WHERE id = ?`,
			h.URL, title, value, h.ID)
	} else {
		if len(hooks) >= max {
			return errHookMax
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO webhooks (id, kind, merchant_code, is_test, url, header_title, header_value, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, h.ID, h.Kind, h.MerchantCode, h.IsTest, h.URL, title, value, time.Now().UnixNano())
	}
	if err != nil {
		return err
	}
	return tx.Commit()
}

func (s *Service) deleteHook(ctx context.Context, kind, merchant string, isTest bool, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM webhooks WHERE id = ? AND kind = ? AND merchant_code = ? AND is_test = ?`,
		id, kind, merchant, isTest)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errHookNotFound
	}
	s.scrub(ctx) // the header value must not outlive the webhook in the file
	return nil
}

// checkWebhookURL applies the service's URL rules and answers the stored
// form. With AllowLocalWebhooks a loopback host (127.0.0.0/8, ::1,
// localhost) is admitted over http or https; any other host must pass the
// public rules. requireHTTPS applies to public hosts (payment webhooks).
func (d *deliverer) checkWebhookURL(ctx context.Context, raw string, requireHTTPS bool) (string, error) {
	normalised, err := webhook.NormalizeURL(raw)
	if err != nil {
		return "", err
	}
	u, err := url.Parse(normalised)
	if err != nil {
		return "", err
	}
	if d.allowLocal && loopbackHost(u.Hostname()) {
		return normalised, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return webhook.URLRules{RequireHTTPS: requireHTTPS, Resolver: d.resolver}.Check(ctx, raw)
}

func loopbackHost(host string) bool {
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkHeader applies the header rules: absent, or both parts valid.
func checkHeader(h *wire.WebhookHeader) error {
	if h == nil {
		return nil
	}
	if err := webhook.CheckHeaderTitle(h.Title); err != nil {
		return err
	}
	return webhook.CheckHeaderValue(h.Value)
}

// hookBody is a create or replace body of either family; "header": null
// and an absent header both mean none.
type hookBody struct {
	URL    *string             `json:"url"`
	Header *wire.WebhookHeader `json:"header"`
}

func decodeHookBody(r *http.Request) (*hookBody, error) {
	body, err := readSizedBody(r)
	if err != nil {
		return nil, err
	}
	var b hookBody
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&b); err != nil {
		return nil, err
	}
	return &b, nil
}

func (s *Service) webhookRoutes(mux *http.ServeMux, region string) {
	mux.HandleFunc("GET /api/v1/webhooks", s.authed(region, authPaymentHooks, s.handleListWebhooks))
	mux.HandleFunc("POST /api/v1/webhooks", s.authed(region, authPaymentHooks, s.handleCreateWebhook))
	mux.HandleFunc("GET /api/v1/webhooks/{id}", s.authed(region, authPaymentHooks, s.handleGetWebhook))
	mux.HandleFunc("PUT /api/v1/webhooks/{id}", s.authed(region, authPaymentHooks, s.handleReplaceWebhook))
	mux.HandleFunc("DELETE /api/v1/webhooks/{id}", s.authed(region, authPaymentHooks, s.handleDeleteWebhook))
}

var (
	errJSONDecodeEOF = badData("json decode: EOF")
	errNoSuchWebhook = &apiError{status: 404, errorType: "not_found", message: "no such webhook"}
	msgHookURL       = "invalid webhook url"
	msgHookHeader    = "invalid webhook header"
)

// paymentHookError words a refusal of a payment webhook write as the
// service does; op is "create payment webhook" or "update payment webhook".
func paymentHookError(op string, err error) error {
	switch {
	case errors.Is(err, errHookExists):
		return badData(op + ": " + errHookExists.Error())
	case errors.Is(err, errHookMax):
		return badData(op + ": " + errHookMax.Error())
	case errors.Is(err, errHookNotFound):
		return errNoSuchWebhook
	}
	return err
}

func (s *Service) handleListWebhooks(w http.ResponseWriter, r *http.Request, c caller) {
	hooks, err := listHooks(r.Context(), s.db, hookKindPayment, c.merchant.Code, c.isTest)
	if err != nil {
		writeError(w, err)
		return
	}
	out := make([]paymentHookView, 0, len(hooks))
	for _, h := range hooks {
		out = append(out, h.paymentView())
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Service) handleGetWebhook(w http.ResponseWriter, r *http.Request, c caller) {
	id, ok := canonicalID(r.PathValue("id"))
	if !ok {
		writeError(w, errJSONDecodeEOF)
		return
	}
	h, err := getHook(r.Context(), s.db, hookKindPayment, c.merchant.Code, c.isTest, id)
	if err != nil {
		writeError(w, paymentHookError("get payment webhook", err))
		return
	}
	writeJSON(w, http.StatusOK, h.paymentView())
}

// paymentHookFromBody checks a payment webhook body; is_test follows the
// key whatever the body says.
func (s *Service) paymentHookFromBody(r *http.Request, c caller, id, op string) (*hookRow, error) {
	b, err := decodeHookBody(r)
	if err != nil {
		return nil, bodyRefusal(err, errJSONDecodeEOF)
	}
	if b.URL == nil {
		return nil, badData(op + ": " + msgHookURL)
	}
	normalised, err := s.hooks.checkWebhookURL(r.Context(), *b.URL, true)
	if err != nil {
		return nil, badData(op + ": " + msgHookURL)
	}
	if err := checkHeader(b.Header); err != nil {
		return nil, badData(op + ": " + msgHookHeader)
	}
	return &hookRow{ID: id, Kind: hookKindPayment, MerchantCode: c.merchant.Code, IsTest: c.isTest, URL: normalised, Header: b.Header}, nil
}

func (s *Service) handleCreateWebhook(w http.ResponseWriter, r *http.Request, c caller) {
	const op = "create payment webhook"
	h, err := s.paymentHookFromBody(r, c, uuid.NewString(), op)
	if err != nil {
		writeError(w, err)
		return
	}
	if err := s.saveHook(r.Context(), h, maxPaymentWebhooks, false); err != nil {
		writeError(w, paymentHookError(op, err))
		return
	}
	writeJSON(w, http.StatusOK, h.paymentView())
}

func (s *Service) handleReplaceWebhook(w http.ResponseWriter, r *http.Request, c caller) {
	const op = "update payment webhook"
	id, ok := canonicalID(r.PathValue("id"))
	if !ok {
		writeError(w, errJSONDecodeEOF)
		return
	}
	h, err := s.paymentHookFromBody(r, c, id, op)
	if err != nil {
		writeError(w, err)
		return
	}
	if err := s.saveHook(r.Context(), h, maxPaymentWebhooks, true); err != nil {
		writeError(w, paymentHookError(op, err))
		return
	}
	writeJSON(w, http.StatusOK, h.paymentView())
}

func (s *Service) handleDeleteWebhook(w http.ResponseWriter, r *http.Request, c caller) {
	id, ok := canonicalID(r.PathValue("id"))
	if !ok {
		writeError(w, errJSONDecodeEOF)
		return
	}
	if err := s.deleteHook(r.Context(), hookKindPayment, c.merchant.Code, c.isTest, id); err != nil {
		writeError(w, paymentHookError("delete payment webhook", err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
