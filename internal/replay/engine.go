package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"sync"

	"github.com/bnpl-cli/bnpl/internal/sandbox"
)

// Engine replays one recording against one sandbox. Its steps are
// serialised: the id map, the customer's moves and the comparisons follow
// the recording's order.
type Engine struct {
	mu  sync.Mutex
	rec *Recording
	sb  *Target
	ids *IDMap

	merchants map[string]sandbox.Merchant // by the recorded (masked) key
	owner     map[string]sandbox.Merchant // by the recorded session or payment id
	fallback  sandbox.Merchant
	// paymentKey is the sandbox key that reads a sandbox payment.
	paymentKey map[string]string
	lapsed     map[string]bool // sandbox payments whose authorization the engine made lapse
	disputes   map[string]disputeFacts

	actions []Action
	notes   []Note
}

// Action is a move the engine made in the sandbox for the customer (or
// the service's support), because the recording shows it happened.
type Action struct {
	Before    int    `json:"before_request"`
	Action    string `json:"action"`
	Recorded  string `json:"recorded_id"`
	SandboxID string `json:"sandbox_id"`
	Error     string `json:"error,omitempty"`
}

// Note is an exchange the engine could not compare, and why.
type Note struct {
	N      int    `json:"request"`
	Method string `json:"method"`
	Path   string `json:"path"`
	Why    string `json:"why"`
}

// NewEngine prepares a replay of rec against sb.
func NewEngine(rec *Recording, sb *Target) *Engine {
	e := &Engine{rec: rec, sb: sb, ids: NewIDMap(), paymentKey: map[string]string{}, lapsed: map[string]bool{}, disputes: disputeIndex(rec)}
	e.chooseMerchants()
	return e
}

// chooseMerchants gives each recorded key a sandbox merchant: the one of
// the recording's region whose currency the key's first checkout used.
// A masked key may stand for several keys (sk_test_****abcd), so a
// checkout is sent as the merchant of its own currency, and a request on a
// session or a payment as the merchant that made it (owner).
func (e *Engine) chooseMerchants() {
	e.merchants, e.owner = map[string]sandbox.Merchant{}, map[string]sandbox.Merchant{}
	e.fallback = e.pick("")
	byCheckout := map[string]bool{}
	for _, x := range e.rec.Exchanges {
		name := x.keyName()
		if x.Key == "" || byCheckout[name] {
			continue
		}
		cur := checkoutCurrency(x)
		if _, ok := e.merchants[name]; !ok || cur != "" {
			e.merchants[name], byCheckout[name] = e.pick(cur), cur != ""
		}
	}
}

// pick is the sandbox merchant of the recording's region for a currency
// (any of the region when "").
func (e *Engine) pick(currency string) sandbox.Merchant {
	region := e.rec.Meta.Region
	if region == "" {
		region = "ae"
		if currency == "SAR" {
			region = "sa"
		}
	}
	var first *sandbox.Merchant
	for i, m := range e.sb.Merchants {
		if m.Region != region {
			continue
		}
		if first == nil {
			first = &e.sb.Merchants[i]
		}
		if currency == "" || strings.EqualFold(m.Currency, currency) {
			return m
		}
	}
	if first != nil {
		return *first
	}
	return e.sb.Merchants[0]
}

// checkoutCurrency is the currency of a checkout request, "" for others.
func checkoutCurrency(x *Exchange) string {
	if x.Method != http.MethodPost || !strings.HasSuffix(x.Path, "/checkout") {
		return ""
	}
	var body struct {
		Payment struct {
			Currency string `json:"currency"`
		} `json:"payment"`
	}
	if json.Unmarshal(x.Body, &body) != nil {
		return ""
	}
	return strings.ToUpper(body.Payment.Currency)
}

func (e *Engine) merchant(x *Exchange) sandbox.Merchant {
	if cur := checkoutCurrency(x); cur != "" {
		return e.pick(cur)
	}
	for _, seg := range strings.Split(x.Path, "/") {
		if m, ok := e.owner[seg]; ok {
			return m
		}
	}
	if m, ok := e.merchants[x.keyName()]; ok {
		return m
	}
	return e.fallback
}

// own notes which merchant made the session and payment a recorded
// checkout answered.
func (e *Engine) own(x *Exchange) {
	if checkoutCurrency(x) == "" {
		return
	}
	var answer struct {
		ID      string `json:"id"`
		Payment struct {
			ID string `json:"id"`
		} `json:"payment"`
	}
	if json.Unmarshal(x.Answer, &answer) != nil {
		return
	}
	m := e.merchant(x)
	for _, id := range []string{answer.ID, answer.Payment.ID} {
		if id != "" {
			e.owner[id] = m
		}
	}
}

// key is the sandbox key standing for the recorded one.
func (e *Engine) key(x *Exchange) string {
	m := e.merchant(x)
	if x.Live() {
		return m.LiveKey
	}
	return m.TestKey
}

// outbound is the request the sandbox gets for a recorded or an app's
// request: ids mapped, the sandbox merchant's key and code.
func (e *Engine) outbound(x *Exchange, h http.Header, body []byte) (http.Header, []byte) {
	m := e.merchant(x)
	out := http.Header{}
	if ct := h.Get("Content-Type"); ct != "" {
		out.Set("Content-Type", ct)
	}
	if code := h.Get("X-Merchant-Code"); code != "" {
		e.ids.Set(code, m.Code)
		out.Set("X-Merchant-Code", m.Code)
	}
	if h.Get("Authorization") != "" {
		out.Set("Authorization", "Bearer "+e.key(x))
	}
	if v, ok := decode(body); ok {
		if obj, ok := v.(map[string]any); ok {
			if code, ok := obj["merchant_code"].(string); ok {
				e.ids.Set(code, m.Code)
			}
		}
	}
	return out, e.ids.JSON(body, m.Code)
}

// lists names the arrays of an answer that list the account's records.
func lists(method, path string) map[string]bool {
	if method != http.MethodGet {
		return nil
	}
	switch strings.TrimRight(path, "/") {
	case "/api/v2/payments":
		return map[string]bool{"$.payments": true}
	case "/api/v1/disputes":
		return map[string]bool{"$.disputes": true}
	case "/api/v1/webhooks", "/api/v1/dispute-webhooks":
		return map[string]bool{"$": true}
	}
	return nil
}

// compareAnswer compares the sandbox's answer with the recorded one,
// learning the ids it pairs.
func (e *Engine) compareAnswer(x *Exchange, ans *Answer, side string) []Difference {
	c := &comparer{ids: e.ids, base: Difference{N: x.N, Method: x.Method, Path: x.Path, Side: side},
		lists: lists(x.Method, x.Path)}
	want, okW := decode(x.Answer)
	got, okG := decode(ans.Body)
	if ans.Status != x.Status {
		c.add("status", DiffStatus, fmt.Sprint(x.Status), fmt.Sprint(ans.Status))
		w, _ := want.(map[string]any)
		g, _ := got.(map[string]any)
		for _, k := range []string{"errorType", "error"} {
			if w != nil && g != nil && w[k] != nil && g[k] != nil {
				c.value("$."+k, k, w[k], g[k])
			}
		}
		return c.diffs
	}
	switch {
	case okW && okG:
		c.value("$", "", want, got)
	case okW != okG:
		c.add("$", DiffBody, bodyKind(x.RespType, x.Answer), bodyKind(ans.Type, ans.Body))
	default:
		wt, gt := mediaType(x.RespType), mediaType(ans.Type)
		if wt != gt {
			c.add("content-type", DiffBody, show(wt), show(gt))
		} else if strings.HasPrefix(wt, "text/") && strings.TrimSpace(string(x.Answer)) != strings.TrimSpace(string(ans.Body)) {
			c.add("$", DiffValue, show(strings.TrimSpace(string(x.Answer))), show(strings.TrimSpace(string(ans.Body))))
		}
	}
	return c.diffs
}

func mediaType(ct string) string {
	t, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(ct))
	}
	return t
}

func bodyKind(ct string, b []byte) string {
	if len(b) == 0 {
		return "(empty body)"
	}
	if _, ok := decode(b); ok {
		return "JSON"
	}
	return fmt.Sprintf("%s, %d bytes", mediaType(ct), len(b))
}

// unreplayable says why an exchange cannot be replayed: it names, with a
// success, an id the replay has not mapped (the record was in the account
// before the recording began, or the sandbox's answer lacked it).
func (e *Engine) unreplayable(x *Exchange) string {
	if x.Status < 200 || x.Status > 299 {
		return ""
	}
	for _, s := range strings.Split(x.Path, "/") {
		if _, ok := e.ids.Get(s); isUUID(s) && !ok {
			return "it names " + s + ", which the replay did not make (in the account before the recording began, or missing from an earlier answer)"
		}
	}
	return ""
}

// send replays one request (the recording's, or the app's in replay).
func (e *Engine) send(ctx context.Context, x *Exchange, method, path, query string, h http.Header, body []byte) (*Answer, error) {
	out, mapped := e.outbound(x, h, body)
	return e.sb.Do(ctx, method, e.ids.Path(path), e.ids.Query(query), out, mapped)
}
