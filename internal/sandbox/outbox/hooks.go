package outbox

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/secret"
	"github.com/bnpl-cli/bnpl/internal/webhook"
	"github.com/bnpl-cli/bnpl/internal/wire"
)

// Payment webhooks (/api/v1/webhooks) and what both webhook families
// share: the table, the URL rules and the header rules. The rules are
// internal/webhook's, which the CLI applies before sending, so the two
// agree on what is refused and on the normalised form.

// MaxPaymentWebhooks is our choice: the service does not publish its limit.
const MaxPaymentWebhooks = 5

// HookRow is a registered webhook of either family. Header holds the
// value in clear: it is needed on the wire, and masked on every answer.
type HookRow struct {
	ID           string
	Kind         string
	MerchantCode string
	IsTest       bool
	URL          string
	Header       *wire.WebhookHeader
}

func (h *HookRow) MaskedHeader() *wire.WebhookHeader {
	if h.Header == nil {
		return nil
	}
	return &wire.WebhookHeader{Title: h.Header.Title, Value: secret.MaskValue(h.Header.Value)}
}

const HookColumns = `id, kind, merchant_code, is_test, url, header_title, header_value`

func ScanHook(sc interface{ Scan(...any) error }) (*HookRow, error) {
	var h HookRow
	var title, value sql.NullString
	if err := sc.Scan(&h.ID, &h.Kind, &h.MerchantCode, &h.IsTest, &h.URL, &title, &value); err != nil {
		return nil, err
	}
	if title.Valid {
		h.Header = &wire.WebhookHeader{Title: title.String, Value: value.String}
	}
	return &h, nil
}

func ListHooks(ctx context.Context, q store.Querier, kind, merchant string, isTest bool) ([]*HookRow, error) {
	rows, err := q.QueryContext(ctx, listHooksQuery, kind, merchant, isTest)
	if err != nil {
		return nil, err
	}
	return scanHooks(rows)
}

// scanHooks reads, and closes, the rows of listHooksQuery.
func scanHooks(rows *sql.Rows) ([]*HookRow, error) {
	defer rows.Close()
	var out []*HookRow
	for rows.Next() {
		h, err := ScanHook(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

var (
	ErrHookNotFound = errors.New("webhook not found")
	ErrHookExists   = errors.New("webhook already exists")
	ErrHookMax      = errors.New("max number of webhooks reached")
)

func GetHook(ctx context.Context, q store.Querier, kind, merchant string, isTest bool, id string) (*HookRow, error) {
	h, err := ScanHook(q.QueryRowContext(ctx, `SELECT `+HookColumns+` FROM webhooks
		WHERE id = ? AND kind = ? AND merchant_code = ? AND is_test = ?`, id, kind, merchant, isTest))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrHookNotFound
	}
	return h, err
}

// SaveHook creates h (replace false) or replaces the webhook with h's id,
// in one write transaction so that the limit and the uniqueness hold
// under concurrent requests.
func (d *Deliverer) SaveHook(ctx context.Context, h *HookRow, max int, replace bool) error {
	tx, err := d.s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	hooks, err := ListHooks(ctx, tx, h.Kind, h.MerchantCode, h.IsTest)
	if err != nil {
		return err
	}
	found := false
	for _, o := range hooks {
		found = found || o.ID == h.ID
	}
	if replace && !found {
		return ErrHookNotFound
	}
	for _, o := range hooks {
		if o.ID != h.ID && o.URL == h.URL {
			return ErrHookExists
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
			return ErrHookMax
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO webhooks (id, kind, merchant_code, is_test, url, header_title, header_value, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, h.ID, h.Kind, h.MerchantCode, h.IsTest, h.URL, title, value, time.Now().UnixNano())
	}
	if err != nil {
		return err
	}
	return tx.Commit()
}

func (d *Deliverer) DeleteHook(ctx context.Context, kind, merchant string, isTest bool, id string) error {
	res, err := d.s.DB.ExecContext(ctx, `DELETE FROM webhooks WHERE id = ? AND kind = ? AND merchant_code = ? AND is_test = ?`,
		id, kind, merchant, isTest)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrHookNotFound
	}
	d.s.Scrub(ctx) // the header value must not outlive the webhook in the file
	return nil
}

// CheckWebhookURL applies the service's URL rules and answers the stored
// form. With AllowLocalWebhooks a loopback host (127.0.0.0/8, ::1,
// localhost) is admitted over http or https; any other host must pass the
// public rules. requireHTTPS applies to public hosts (payment webhooks).
func (d *Deliverer) CheckWebhookURL(ctx context.Context, raw string, requireHTTPS bool) (string, error) {
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

// CheckHeader applies the header rules: absent, or both parts valid.
func CheckHeader(h *wire.WebhookHeader) error {
	if h == nil {
		return nil
	}
	if err := webhook.CheckHeaderTitle(h.Title); err != nil {
		return err
	}
	// The sandbox sets these on every delivery itself.
	if err := webhook.CheckOwnTitle(h.Title); err != nil {
		return err
	}
	return webhook.CheckHeaderValue(h.Value)
}
