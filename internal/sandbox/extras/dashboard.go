package extras

import (
	"bytes"
	"context"
	_ "embed" // dashboard.html
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/middleware"
	"github.com/bnpl-cli/bnpl/internal/sandbox/outbox"
	"github.com/bnpl-cli/bnpl/internal/sandbox/reqlog"
	"github.com/bnpl-cli/bnpl/internal/sandbox/service"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/wire"
)

// The dashboard: GET /_sandbox/ on each listener shows that region's
// payments, disputes, webhooks and their deliveries, newest first, with a
// button for each move the `bnpl sandbox` verbs make. Like the hosted
// payment page it is plain server-rendered HTML with inline CSS and no
// script: each button is a form that POSTs to /_sandbox/dashboard/...,
// which makes the move and sends the browser back to the page (303), or
// shows the page again with the refusal. It answers loopback clients only,
// as the control endpoints do, and the browser guard (middleware.GuardSandboxPaths) keeps other sites from
// driving it through the developer's browser.

//go:embed dashboard.html
var dashboardHTML string

var dashboardTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("dashboard").Funcs(template.FuncMap{
		"when": func(t time.Time) string {
			if t.IsZero() {
				return ""
			}
			return t.UTC().Format("2006-01-02 15:04:05 UTC")
		},
	}).Parse(dashboardHTML))
})

// dashSection is one section of the page. Load reads what it shows; the
// template named ID in dashboard.html renders that. A new section is one
// entry in dashboardSections and one {{define}} in dashboard.html.
type dashSection struct {
	ID    string
	Title string
	Load  func(ctx context.Context, s *Local, q *dashQuery) (any, error)
}

// dashboardSections are the page's sections, in order.
var dashboardSections = []dashSection{
	{ID: "clock", Title: "Clock", Load: loadDashClock},
	{ID: "payments", Title: "Payments", Load: loadDashPayments},
	{ID: "disputes", Title: "Disputes", Load: loadDashDisputes},
	{ID: "webhooks", Title: "Webhooks", Load: loadDashWebhooks},
	{ID: "requests", Title: "Request log", Load: loadDashRequests},
}

// dashRequestLimit is how many logged requests the page shows.
const dashRequestLimit = 50

// dashRequests is the request log section: the listener's region's latest
// requests, newest first, as bnpl sandbox logs shows them (key and header
// values are masked when they are logged).
type dashRequests struct {
	Off  bool // the sandbox was started with --no-request-log
	Rows []reqlog.LogEntry
}

func loadDashRequests(ctx context.Context, s *Local, q *dashQuery) (any, error) {
	if s.Log == nil {
		return dashRequests{Off: true}, nil
	}
	entries, err := s.Log.RequestLog(ctx, reqlog.LogFilter{Limit: 1000})
	if err != nil {
		return nil, err
	}
	out := dashRequests{}
	for _, e := range entries {
		if e.Region == q.Region {
			out.Rows = append(out.Rows, e)
			if len(out.Rows) == dashRequestLimit {
				break
			}
		}
	}
	return out, nil
}

// dashQuery is what every section's Load gets: the listener's region, its
// merchants and the sandbox's time.
type dashQuery struct {
	Region    string
	Merchants []string // codes of the region's merchants
	Now       time.Time
}

// in answers "IN (?, ?, ...)" and its arguments for the region's merchants.
func (q *dashQuery) in() (string, []any) {
	args := make([]any, len(q.Merchants))
	for i, m := range q.Merchants {
		args[i] = m
	}
	return "IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(args)), ", ") + ")", args
}

const (
	dashPaymentLimit  = 50
	dashDisputeLimit  = 50
	dashDeliveryLimit = 10 // per webhook
)

type dashPage struct {
	Region   string
	Now      string
	Message  string
	Error    string
	Sections []dashRendered
}

type dashRendered struct {
	ID, Title string
	HTML      template.HTML // rendered by html/template, so escaped
}

func (s *Local) dashboardRoutes(mux *http.ServeMux, region string) {
	mux.HandleFunc("GET /_sandbox", middleware.LoopbackOnly(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/_sandbox/", http.StatusMovedPermanently)
	}))
	mux.HandleFunc("GET /_sandbox/{$}", middleware.LoopbackOnly(func(w http.ResponseWriter, r *http.Request) {
		s.renderDashboard(w, r, region, http.StatusOK, doneMessage(r.URL.Query()), "")
	}))
	mux.HandleFunc("POST /_sandbox/dashboard/payments/{id}/{action}", middleware.LoopbackOnly(s.dashAction(region, s.dashPaymentAction)))
	mux.HandleFunc("POST /_sandbox/dashboard/disputes/{id}/resolve", middleware.LoopbackOnly(s.dashAction(region, s.dashResolve)))
	mux.HandleFunc("POST /_sandbox/dashboard/clock/advance", middleware.LoopbackOnly(s.dashAction(region, s.dashAdvance)))
	mux.HandleFunc("POST /_sandbox/dashboard/deliveries/{id}/resend", middleware.LoopbackOnly(s.dashAction(region, s.dashResend)))
}

// dashDone is where a successful button sends the browser: the page, with
// what was done in the query (re-checked when the page is drawn, so the
// query cannot put words of its own on it).
type dashDone struct {
	action, id, by string
}

// dashAction runs a button's move: 303 to the page on success, the page
// with the refusal (and the refusal's status) otherwise.
func (s *Local) dashAction(region string, fn func(r *http.Request) (dashDone, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		if err := r.ParseForm(); err != nil {
			s.renderDashboard(w, r, region, http.StatusBadRequest, "", "could not read the form: "+err.Error())
			return
		}
		done, err := fn(r)
		if err != nil {
			status, msg := http.StatusInternalServerError, "the sandbox failed: "+err.Error()
			if ae, ok := err.(*edge.Refusal); ok {
				status, msg = ae.Status, ae.Error()
			}
			s.renderDashboard(w, r, region, status, "", msg)
			return
		}
		to := "/_sandbox/?done=" + url.QueryEscape(done.action)
		if done.id != "" {
			to += "&id=" + url.QueryEscape(done.id)
		}
		if done.by != "" {
			to += "&by=" + url.QueryEscape(done.by)
		}
		http.Redirect(w, r, to, http.StatusSeeOther)
	}
}

func (s *Local) dashPaymentAction(r *http.Request) (dashDone, error) {
	id, action := r.PathValue("id"), r.PathValue("action")
	var err error
	switch action {
	case "approve":
		_, err = s.Approve(r.Context(), id)
	case "reject":
		_, err = s.Reject(r.Context(), id)
	case "cancel":
		_, err = s.Cancel(r.Context(), id)
	case "expire-auth":
		_, err = s.ExpireAuth(r.Context(), id)
	case "dispute":
		var d *wire.Dispute
		d, err = s.OpenDispute(r.Context(), id, r.PostFormValue("reason"), strings.TrimSpace(r.PostFormValue("amount")))
		if err == nil {
			return dashDone{action: "dispute", id: d.ID}, nil
		}
	default:
		return dashDone{}, &edge.Refusal{Status: http.StatusNotFound, ErrorType: "not_found", Message: fmt.Sprintf("no such payment action %q", action)}
	}
	if err != nil {
		return dashDone{}, err
	}
	return dashDone{action: action, id: strings.ToLower(id)}, nil
}

func (s *Local) dashResolve(r *http.Request) (dashDone, error) {
	d, err := s.ResolveDispute(r.Context(), r.PathValue("id"), r.PostFormValue("status"))
	if err != nil {
		return dashDone{}, err
	}
	return dashDone{action: "resolve", id: d.ID}, nil
}

func (s *Local) dashAdvance(r *http.Request) (dashDone, error) {
	by := strings.TrimSpace(r.PostFormValue("by"))
	d, err := store.ParseDuration(by)
	if err != nil {
		if refusal := s.Refusal(r.Context(), err); refusal != nil {
			return dashDone{}, refusal
		}
		return dashDone{}, edge.BadData(fmt.Sprintf("invalid duration %q: use Go durations such as 90s, 1h30m, or days such as 7d", by))
	}
	if _, err := s.AdvanceClock(r.Context(), d); err != nil {
		return dashDone{}, err
	}
	return dashDone{action: "advance", by: by}, nil
}

func (s *Local) dashResend(r *http.Request) (dashDone, error) {
	a, err := s.Outbox.Resend(r.Context(), r.PathValue("id"))
	if err != nil {
		return dashDone{}, err
	}
	return dashDone{action: "resend", id: a.DeliveryID}, nil
}

// doneMessage words what a button did, from the query it redirected with.
// Only known actions with well-formed ids or durations are worded, so a
// crafted link cannot make the page say anything else.
func doneMessage(q url.Values) string {
	action, id := q.Get("done"), q.Get("id")
	if action == "advance" {
		by := q.Get("by")
		if _, err := store.ParseDuration(by); err != nil {
			return ""
		}
		return "Advanced the clock by " + by + "."
	}
	if !edge.ValidUUID(id) {
		return ""
	}
	format := map[string]string{
		"approve":     "Approved payment %s.",
		"reject":      "Rejected payment %s.",
		"cancel":      "Cancelled payment %s.",
		"expire-auth": "Expired the authorization of payment %s.",
		"dispute":     "Opened dispute %s.",
		"resolve":     "Moved dispute %s.",
		"resend":      "Queued delivery %s: the notification is being sent again.",
	}[action]
	if format == "" {
		return ""
	}
	return fmt.Sprintf(format, id)
}

func (s *Local) renderDashboard(w http.ResponseWriter, r *http.Request, region string, status int, message, errMsg string) {
	ctx := r.Context()
	now, err := s.CurrentTime(ctx)
	if err != nil {
		// A damaged clock offset says which row and what to do.
		msg := "Internal Server Error"
		var ae *edge.Refusal
		if errors.As(err, &ae) {
			msg += ": " + ae.Message
		}
		http.Error(w, msg, http.StatusInternalServerError)
		return
	}
	q := &dashQuery{Region: region, Now: now}
	for _, m := range s.Merchants() {
		if m.Region == region {
			q.Merchants = append(q.Merchants, m.Code)
		}
	}
	page := dashPage{Region: region, Now: now.UTC().Format("2006-01-02 15:04:05 UTC"), Message: message, Error: errMsg}
	t := dashboardTemplate()
	for _, sec := range dashboardSections {
		data, err := sec.Load(ctx, s, q)
		if err != nil {
			http.Error(w, "Internal Server Error: "+sec.Title+": "+err.Error(), http.StatusInternalServerError)
			return
		}
		var buf bytes.Buffer
		if err := t.ExecuteTemplate(&buf, sec.ID, data); err != nil {
			http.Error(w, "Internal Server Error: "+sec.Title+": "+err.Error(), http.StatusInternalServerError)
			return
		}
		page.Sections = append(page.Sections, dashRendered{ID: sec.ID, Title: sec.Title, HTML: template.HTML(buf.String())})
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, page); err != nil {
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	// The page is never framed, and loads nothing from anywhere else.
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.Header().Set("Referrer-Policy", "same-origin") // no-referrer would make the forms' Origin "null"
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// DashboardURL is the dashboard's address on a listener bound to addr: an
// unspecified address (0.0.0.0, ::) is reached on loopback.
func DashboardURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String() + "/_sandbox/"
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip.To4() == nil {
			host = "::1"
		}
	}
	return "http://" + net.JoinHostPort(host, port) + "/_sandbox/"
}

// Sections.

type dashClock struct {
	Now    string
	Offset string
	Steps  []string
}

func loadDashClock(ctx context.Context, s *Local, q *dashQuery) (any, error) {
	offset, err := s.ClockOffset(ctx)
	if err != nil {
		return nil, err
	}
	return dashClock{Now: q.Now.UTC().Format("2006-01-02 15:04:05 UTC"), Offset: offset.String(), Steps: []string{"1h", "1d", "7d"}}, nil
}

type dashPayment struct {
	ID, Merchant, Mode, Status, Note   string
	Amount, Captured, Refunded         string
	Captures, Refunds                  int
	Created                            time.Time
	CanDecide, CanExpireAuth, Disputes bool
}

type dashPayments struct {
	Rows    []dashPayment
	Total   int
	Reasons []string
}

func loadDashPayments(ctx context.Context, s *Local, q *dashQuery) (any, error) {
	out := dashPayments{Reasons: wire.DisputeReasons}
	var err error
	out.Total, err = newestDocs(ctx, s, "payments", q, dashPaymentLimit, func(id string, doc []byte) error {
		rec, err := store.DecodeRecord(doc, "id", id)
		if err != nil {
			return err
		}
		p := service.View(rec, q.Now)
		row := dashPayment{ID: p.ID, Merchant: rec.MerchantCode, Mode: "live", Status: p.Status,
			Amount:   money.Display(p.Amount, p.Currency),
			Captured: money.Display(p.Captured(), p.Currency), Refunded: money.Display(p.Refunded(), p.Currency),
			Captures: len(p.Captures), Refunds: len(p.Refunds)}
		if p.IsTest {
			row.Mode = "test"
		}
		if p.CreatedAt != nil {
			row.Created = *p.CreatedAt
		}
		switch {
		case p.Status == wire.StatusCreated:
			row.CanDecide = true
		case rec.AuthExpired(q.Now):
			row.Note = "authorization expired"
		case p.Status == wire.StatusAuthorized:
			row.CanExpireAuth = true
		case p.Status == wire.StatusClosed && !p.IsTest && p.Captured().Sub(p.Refunded()).IsPositive():
			row.Disputes = true
		}
		out.Rows = append(out.Rows, row)
		return nil
	})
	return out, err
}

type dashDispute struct {
	ID, Payment, Merchant, Status, Reason, Amount string
	DaysLeft                                      int
	Created                                       time.Time
	Open                                          bool
}

type dashDisputes struct {
	Rows     []dashDispute
	Total    int
	Statuses []string // what support may move an open dispute to
}

func loadDashDisputes(ctx context.Context, s *Local, q *dashQuery) (any, error) {
	out := dashDisputes{}
	for _, st := range wire.DisputeStatuses {
		if st != service.StatusNew {
			out.Statuses = append(out.Statuses, st)
		}
	}
	var err error
	out.Total, err = newestDocs(ctx, s, "disputes", q, dashDisputeLimit, func(id string, doc []byte) error {
		var d service.DisputeDoc
		if err := json.Unmarshal(doc, &d); err != nil {
			return store.CorruptRow("disputes", "id", id, err)
		}
		v := d.View(q.Now, false)
		out.Rows = append(out.Rows, dashDispute{ID: v.ID, Payment: v.PaymentID, Merchant: d.MerchantCode, Status: v.Status,
			Reason: v.Reason, Amount: money.DisplayString(v.Amount, v.Currency), DaysLeft: v.DaysLeft, Created: v.CreatedAt,
			Open: !service.FinalDisputeStatuses[v.Status]})
		return nil
	})
	return out, err
}

// newestDocs calls each with the id and document of the newest rows of
// table (payments or disputes) of the listener's merchants, at most limit,
// and answers how many rows there are in all.
func newestDocs(ctx context.Context, s *Local, table string, q *dashQuery, limit int, each func(id string, doc []byte) error) (int, error) {
	in, args := q.in()
	var total int
	if err := s.DB.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+table+` WHERE merchant_code `+in, args...).Scan(&total); err != nil {
		return 0, err
	}
	doc := "doc"
	if table == "payments" {
		doc = store.PaymentDoc
	}
	rows, err := s.DB.QueryContext(ctx, `SELECT id, `+doc+` FROM `+table+` WHERE merchant_code `+in+`
		ORDER BY created_at DESC, seq DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var doc []byte
		if err := rows.Scan(&id, &doc); err != nil {
			return 0, err
		}
		if err := each(id, doc); err != nil {
			return 0, err
		}
	}
	return total, rows.Err()
}

// dashWebhook is a webhook as the page shows it: the header's title only,
// never its value.
type dashWebhook struct {
	ID, Kind, Merchant, Mode, URL, HeaderTitle string
	Deliveries                                 []dashDelivery
}

type dashDelivery struct {
	ID, Event, Subject, Status, Answer string
	Attempts                           int
	Created                            time.Time
}

func loadDashWebhooks(ctx context.Context, s *Local, q *dashQuery) (any, error) {
	in, args := q.in()
	rows, err := s.DB.QueryContext(ctx, `SELECT `+outbox.HookColumns+` FROM webhooks WHERE merchant_code `+in+` ORDER BY seq DESC`, args...)
	if err != nil {
		return nil, err
	}
	var hooks []*outbox.HookRow
	for rows.Next() {
		h, err := outbox.ScanHook(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		hooks = append(hooks, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := []dashWebhook{}
	for _, h := range hooks {
		v := dashWebhook{ID: h.ID, Kind: h.Kind, Merchant: h.MerchantCode, Mode: "live", URL: h.URL}
		if h.IsTest {
			v.Mode = "test"
		}
		if h.Header != nil {
			v.HeaderTitle = h.Header.Title
		}
		if v.Deliveries, err = dashHookDeliveries(ctx, s, h.ID); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func dashHookDeliveries(ctx context.Context, s *Local, hookID string) ([]dashDelivery, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT id, event, subject_id, attempts, status, http_status, error, created_at
		FROM deliveries WHERE webhook_id = ? ORDER BY seq DESC LIMIT ?`, hookID, dashDeliveryLimit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []dashDelivery
	for rows.Next() {
		var d dashDelivery
		var httpStatus int
		var errText string
		var created int64
		if err := rows.Scan(&d.ID, &d.Event, &d.Subject, &d.Attempts, &d.Status, &httpStatus, &errText, &created); err != nil {
			return nil, err
		}
		d.Created = time.Unix(0, created).UTC()
		d.Answer = errText // "answered 500, want 200", or why nothing was answered
		if d.Answer == "" && httpStatus != 0 {
			d.Answer = fmt.Sprint(httpStatus)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}
