package extras

import (
	"bytes"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/service"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/wire"
	"github.com/shopspring/decimal"
)

// The hosted payment page: what the customer sees at a session's web_url.
// It is plain server-rendered HTML with no external assets, so it works
// offline and in a headless browser; each button is a form POST that
// performs the move and sends the customer back to the merchant.

func (s *Local) hppRoutes(mux *http.ServeMux, region string) {
	mux.HandleFunc("GET /_sandbox/hpp/{id}", s.handleHPP)
	for _, action := range []string{"approve", "reject", "cancel"} {
		mux.HandleFunc("POST /_sandbox/hpp/{id}/"+action, s.hppAction(action))
	}
}

// installmentCount is the plan the page shows: today and then monthly.
const installmentCount = 4

type installment struct {
	Due    string
	Amount string
}

// Schedule splits amount into equal installments in the currency's places;
// the first takes the remainder so the parts add up exactly.
func Schedule(amount decimal.Decimal, currency string, start time.Time) []installment {
	places := money.Places(currency)
	part := amount.Div(decimal.NewFromInt(installmentCount)).Truncate(places)
	first := amount.Sub(part.Mul(decimal.NewFromInt(installmentCount - 1)))
	out := make([]installment, installmentCount)
	for i := range out {
		a := part
		if i == 0 {
			a = first
		}
		due := "Today"
		if i > 0 {
			due = start.AddDate(0, i, 0).Format("2 Jan 2006")
		}
		out[i] = installment{Due: due, Amount: money.Format(a, currency)}
	}
	return out
}

type hppItem struct {
	Title, Quantity, UnitPrice string
}

type hppData struct {
	SessionID    string
	MerchantName string
	Currency     string
	Amount       string
	Status       string
	Reference    string
	Description  string
	Items        []hppItem
	Schedule     []installment
	CanAct       bool
	Message      string
	Error        string
}

var hppTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("hpp").Parse(hppHTML))
})

const hppHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pay in {{len .Schedule}} · {{.MerchantName}} · bnpl sandbox</title>
<style>
body{font-family:system-ui,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem;color:#222}
h1{font-size:1.3rem}.banner{background:#fff3c4;padding:.4rem .6rem;border-radius:4px;font-size:.85rem}
table{width:100%;border-collapse:collapse;margin:1rem 0}td,th{text-align:left;padding:.3rem;border-bottom:1px solid #ddd}
td.n,th.n{text-align:right}.total{font-size:1.2rem;font-weight:bold}
.err{background:#fde2e2;padding:.5rem;border-radius:4px}.msg{background:#e2f3fd;padding:.5rem;border-radius:4px}
form{display:inline}button{font-size:1rem;padding:.5rem 1rem;margin:.3rem .3rem 0 0;cursor:pointer}
</style></head><body>
<p class="banner">Sandbox checkout: no real money moves.</p>
<h1>{{.MerchantName}}</h1>
<p class="total" id="total">{{.Amount}} {{.Currency}}</p>
{{if .Reference}}<p>Order <span id="reference">{{.Reference}}</span></p>{{end}}
{{if .Description}}<p>{{.Description}}</p>{{end}}
<p>Status: <strong id="status">{{.Status}}</strong></p>
{{if .Error}}<p class="err" id="error">{{.Error}}</p>{{end}}
{{if .Message}}<p class="msg" id="message">{{.Message}}</p>{{end}}
{{if .Items}}<h2>Items</h2>
<table id="items"><tr><th>Item</th><th class="n">Qty</th><th class="n">Unit price</th></tr>
{{range .Items}}<tr><td>{{.Title}}</td><td class="n">{{.Quantity}}</td><td class="n">{{.UnitPrice}}</td></tr>
{{end}}</table>{{end}}
<h2>Pay in {{len .Schedule}}</h2>
<table id="schedule"><tr><th>Due</th><th class="n">Amount ({{.Currency}})</th></tr>
{{range .Schedule}}<tr><td>{{.Due}}</td><td class="n">{{.Amount}}</td></tr>
{{end}}</table>
{{if .CanAct}}
<form method="post" action="/_sandbox/hpp/{{.SessionID}}/approve"><button id="approve" type="submit">Approve</button></form>
<form method="post" action="/_sandbox/hpp/{{.SessionID}}/reject"><button id="reject" type="submit">Reject</button></form>
<form method="post" action="/_sandbox/hpp/{{.SessionID}}/cancel"><button id="cancel" type="submit">Cancel</button></form>
{{end}}
</body></html>
`

// pageSession is the session of the page's path, or answers a plain 404
// (no such id) or 500 and false, as a page for a browser does.
func (s *Local) pageSession(w http.ResponseWriter, r *http.Request) (*store.Record, bool) {
	id, ok := edge.CanonicalID(r.PathValue("id"))
	if !ok {
		http.NotFound(w, r)
		return nil, false
	}
	rec, err := s.LoadSession(r.Context(), id, nil)
	if err != nil {
		if err == edge.ErrNoSuchSession {
			http.NotFound(w, r)
		} else {
			http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		}
		return nil, false
	}
	return rec, true
}

func (s *Local) handleHPP(w http.ResponseWriter, r *http.Request) {
	s.renderHPP(w, r, http.StatusOK, "")
}

func (s *Local) renderHPP(w http.ResponseWriter, r *http.Request, status int, errMsg string) {
	rec, ok := s.pageSession(w, r)
	if !ok {
		return
	}
	now, err := s.CurrentTime(r.Context())
	if err != nil {
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	p := service.View(rec, now)
	data := hppData{
		SessionID:   rec.SessionID,
		Currency:    p.Currency,
		Amount:      money.Format(p.Amount, p.Currency),
		Status:      p.Status,
		Description: p.Description,
		Schedule:    Schedule(p.Amount, p.Currency, now),
		Error:       errMsg,
	}
	data.MerchantName = rec.MerchantCode
	if m := s.MerchantsByCode[rec.MerchantCode]; m != nil {
		data.MerchantName = m.Name
	}
	if p.Order != nil {
		data.Reference = p.Order.ReferenceID
		for _, it := range p.Order.Items {
			data.Items = append(data.Items, hppItem{Title: it.Title, Quantity: Itoa(it.Quantity), UnitPrice: money.Format(it.UnitPrice, p.Currency)})
		}
	}
	switch {
	case rec.SessionStatus == wire.SessionRejected:
		data.Message = "Sorry, this purchase cannot be paid in installments (" + rec.RejectionReason + ")."
	case p.Status == wire.StatusCreated:
		data.CanAct = true
	case p.Status == wire.StatusAuthorized || p.Status == wire.StatusClosed:
		data.Message = "This checkout is complete."
	default:
		data.Message = "This checkout has ended."
	}
	var buf bytes.Buffer
	if err := hppTemplate().Execute(&buf, data); err != nil {
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	hppSecurityHeaders(w.Header())
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// hppSecurityHeaders are the dashboard's: the page is never framed (its
// approve and reject buttons cannot be clickjacked), loads nothing from
// anywhere else, and is not sniffed as another type. Its forms post to
// itself, and the 303 that follows goes to the merchant's http(s) URL,
// which form-action must admit.
func hppSecurityHeaders(h http.Header) {
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https:; frame-ancestors 'none'; base-uri 'none'")
	h.Set("Referrer-Policy", "same-origin") // no-referrer would make the forms' Origin "null"
}

// httpURL tells whether a merchant URL may be followed: http or https,
// with a host. Anything else (javascript:, data:, file:) is never sent
// to a browser.
func httpURL(u *url.URL) bool {
	return (strings.EqualFold(u.Scheme, "http") || strings.EqualFold(u.Scheme, "https")) && u.Host != ""
}

func Itoa(n int) string { return decimal.NewFromInt(int64(n)).String() }

// hppAction performs a button's move and sends the customer to the
// merchant's URL for the outcome (success when authorized, failure when
// rejected, cancel when cancelled) with ?payment_id=; without such a URL,
// back to the page, which then shows the outcome.
func (s *Local) hppAction(action string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rec, ok := s.pageSession(w, r)
		if !ok {
			return
		}
		var fn store.MoveFunc
		switch action {
		case "approve":
			fn = s.approveMove
		case "reject":
			fn = rejectMove
		default:
			fn = cancelMove
		}
		done, err := s.Move(r.Context(), rec.Payment.ID, nil, fn)
		if err != nil {
			status := http.StatusInternalServerError
			msg := "Something went wrong."
			if ae, ok := err.(*edge.Refusal); ok {
				status, msg = ae.Status, ae.Error()
			}
			s.renderHPP(w, r, status, msg)
			return
		}
		target := ""
		if u := done.MerchantURLs; u != nil {
			switch done.Payment.Status {
			case wire.StatusAuthorized:
				target = u.Success
			case wire.StatusRejected:
				target = u.Failure
			case wire.StatusExpired:
				target = u.Cancel
			}
		}
		if u, err := url.Parse(target); target != "" && (err != nil || !httpURL(u)) {
			target = "" // a state made before the rule, or edited by hand: back to the page
		}
		if target == "" {
			hppSecurityHeaders(w.Header())
			http.Redirect(w, r, "/_sandbox/hpp/"+done.SessionID, http.StatusSeeOther)
			return
		}
		hppSecurityHeaders(w.Header())
		http.Redirect(w, r, withPaymentID(target, done.Payment.ID), http.StatusSeeOther)
	}
}

func withPaymentID(target, paymentID string) string {
	u, err := url.Parse(target)
	if err != nil {
		return target
	}
	q := u.Query()
	q.Set("payment_id", paymentID)
	u.RawQuery = q.Encode()
	return u.String()
}
