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

	plans     map[string]*keyPlan         // by the recorded (masked) key
	merchants map[string]sandbox.Merchant // by the recorded (masked) key
	fallback  sandbox.Merchant
	// paymentKey is the sandbox key that reads a sandbox payment.
	paymentKey map[string]string
	lapsed     map[string]bool          // sandbox payments whose authorization the engine made lapse
	shown      map[string][]shownStatus // by recorded payment id, made on first need
	disputes   map[string]disputeFacts
	// lastShown is, by recorded payment id, the last exchange replayed
	// whose answer showed the payment whole (noteShown).
	lastShown map[string]*Exchange

	actions []Action
	notes   []Note
	// replayed marks when each run of requests began to be replayed, so
	// that a notification of the sandbox is traced to the request that
	// made it.
	replayed []replayMark
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

// chooseMerchants gives each recorded key the sandbox merchant it stands
// for (see planKeys): the one with the recorded merchant code, else one of
// the key's region and currency that no other recorded merchant took.
// A key the service did not know gets none.
func (e *Engine) chooseMerchants() {
	e.plans = planKeys(e.rec)
	e.merchants = map[string]sandbox.Merchant{}
	byGroup := map[int]sandbox.Merchant{}
	taken := map[string]bool{}
	region := Region(e.rec)
	for _, name := range sortedPlanNames(e.plans) {
		p := e.plans[name]
		if p.kind != credValid && p.kind != credForeign {
			continue
		}
		if m, ok := byGroup[p.group]; ok {
			e.merchants[name] = m
			continue
		}
		r := region
		if p.kind == credForeign {
			r = otherRegion(region)
		}
		m := e.pick(p.code, r, regionCurrency(r, p.currency), taken)
		taken[m.Code] = true
		byGroup[p.group], e.merchants[name] = m, m
		if e.fallback.Code == "" {
			e.fallback = m
		}
	}
	if e.fallback.Code == "" {
		e.fallback = e.pick("", region, "", taken)
	}
}

// pick is the sandbox merchant with code, else of region and currency
// ("" any), one not taken first.
func (e *Engine) pick(code, region, currency string, taken map[string]bool) sandbox.Merchant {
	for _, m := range e.sb.Merchants {
		if code != "" && m.Code == code {
			return m
		}
	}
	fits := func(m sandbox.Merchant) bool {
		return m.Region == region && (currency == "" || strings.EqualFold(m.Currency, currency))
	}
	for _, pass := range []func(sandbox.Merchant) bool{
		func(m sandbox.Merchant) bool { return fits(m) && !taken[m.Code] },
		fits,
		func(m sandbox.Merchant) bool { return m.Region == region },
	} {
		for _, m := range e.sb.Merchants {
			if pass(m) {
				return m
			}
		}
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
	if json.Unmarshal(x.body(), &body) != nil {
		return ""
	}
	return strings.ToUpper(body.Payment.Currency)
}

// merchant is the sandbox merchant the exchange's key stands for; ok is
// false for a request without a merchant's key.
func (e *Engine) merchant(x *Exchange) (sandbox.Merchant, bool) {
	m, ok := e.merchants[x.keyName()]
	return m, ok
}

// key is the sandbox key standing for the recorded one: the merchant's in
// the recorded mode, or a key no sandbox merchant has for a key the
// service did not know.
func (e *Engine) key(x *Exchange) string {
	m, ok := e.merchant(x)
	switch {
	case !ok:
		return unknownKey(x.Key, x.KeyID)
	case x.Live():
		return m.LiveKey
	}
	return m.TestKey
}

// authorization is the Authorization header the sandbox gets for a
// recorded one: none for none, the recorded value for one that is no
// Bearer secret key (the service refused its form, and so will the
// sandbox), else a key of the same kind.
func (e *Engine) authorization(x *Exchange, recorded string) string {
	if recorded == "" {
		return ""
	}
	if _, ok := authScheme(recorded); !ok {
		return recorded
	}
	return "Bearer " + e.key(x)
}

// outbound is the request the sandbox gets for a recorded or an app's
// request: ids mapped, the key of the same kind, and the merchant code
// the key was used with mapped to its sandbox merchant's (any other code
// is sent as it was: the sandbox does not know it either).
func (e *Engine) outbound(x *Exchange, h http.Header, body []byte) (http.Header, []byte) {
	out := http.Header{}
	for _, name := range []string{"Content-Type", "Content-Encoding", "Idempotency-Key"} {
		if v := h.Get(name); v != "" {
			out.Set(name, v)
		}
	}
	m, known := e.merchant(x)
	p := e.plans[x.keyName()]
	if known && p != nil && p.code != "" {
		e.ids.Set(p.code, m.Code)
	}
	if code := h.Get("X-Merchant-Code"); code != "" {
		out.Set("X-Merchant-Code", e.ids.Inside(code))
		if mapped, ok := e.ids.Get(code); ok {
			out.Set("X-Merchant-Code", mapped)
		}
	}
	if v := e.authorization(x, x.Header.Get("Authorization")); v != "" {
		out.Set("Authorization", v)
	}
	return out, unmaskHeaderValues(e.ids.JSON(body, ""), x)
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
	return e.compareWith(&comparer{ids: e.ids}, x, ans)
}

// compareWith compares with c (its id map: the engine's, or a copy for a
// comparison whose learning must not count).
func (e *Engine) compareWith(c *comparer, x *Exchange, ans *Answer) []Difference {
	c.base, c.lists = Difference{N: x.N, Method: x.Method, Path: x.Path, Side: "answer"}, lists(x.Method, x.Path)
	want, okW := decode(x.answer())
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
	if wt, gt := mediaType(x.RespType), mediaType(ans.Type); okW && okG && wt != "" && wt != gt {
		c.add("header Content-Type", DiffValue, show(wt), show(gt))
	}
	switch {
	case okW && okG:
		c.value("$", "", want, got)
	case okW != okG:
		c.add("$", DiffBody, bodyKind(x.RespType, x.answer()), bodyKind(ans.Type, ans.Body))
	default:
		wt, gt := mediaType(x.RespType), mediaType(ans.Type)
		if wt != gt {
			c.add("content-type", DiffBody, show(wt), show(gt))
		} else if strings.HasPrefix(wt, "text/") && strings.TrimSpace(string(x.answer())) != strings.TrimSpace(string(ans.Body)) {
			c.add("$", DiffValue, show(strings.TrimSpace(string(x.answer()))), show(strings.TrimSpace(string(ans.Body))))
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
