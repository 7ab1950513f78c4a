package replay

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/har"
)

// What the customer (or the service's support) did between two requests
// is not in the traffic, but its results are: a payment read AUTHORIZED
// after CREATED was approved; one read REJECTED or EXPIRED was rejected
// or abandoned; an authorization the service calls expired lapsed; a
// dispute listed that no request opened was opened by the customer, and
// one read in another status was moved by support. Before each step the
// engine makes the sandbox agree with what the recorded answer (or
// notification) shows, through the sandbox's control endpoints, and keeps
// a list of what it did.

// paymentStatuses are the API's statuses (a notification's are lower case).
var paymentStatuses = map[string]bool{"CREATED": true, "AUTHORIZED": true, "CLOSED": true, "REJECTED": true, "EXPIRED": true}

// seenPayment is a payment as a recorded document shows it.
type seenPayment struct {
	id, status  string
	authExpired bool
}

// findPayments lists the payments a document shows. lower admits the
// lower-case statuses of a notification (elsewhere "created" is a
// session's).
func findPayments(v any, lower bool, out *[]seenPayment) {
	switch t := v.(type) {
	case map[string]any:
		id, _ := t["id"].(string)
		status, _ := t["status"].(string)
		up := strings.ToUpper(status)
		if isUUID(id) && paymentStatuses[up] && (lower || status == up) {
			expired, _ := t["is_expired"].(bool)
			*out = append(*out, seenPayment{id: id, status: up, authExpired: expired && up == "AUTHORIZED"})
		}
		for _, c := range t {
			findPayments(c, lower, out)
		}
	case []any:
		for _, c := range t {
			findPayments(c, lower, out)
		}
	}
}

// expiredAuthMessages are the service's answers to a move on a payment
// whose authorization lapsed.
var expiredAuthMessages = []string{"payment was already expired"}

// ensure makes the sandbox agree with what x shows happened before it.
func (e *Engine) ensure(ctx context.Context, x *Exchange) {
	notification := x.Kind == har.KindNotification
	doc, ok := decode(x.answer())
	if notification {
		doc, ok = decode(x.body())
	}
	if id := pathPayment(x.Path); id != "" && movedMoney(x) {
		// A capture, close or refund the service took was of an
		// authorized payment, whatever its answer shows.
		e.ensurePayment(ctx, x, seenPayment{id: id, status: "AUTHORIZED"})
	}
	if ok && (notification || (x.Status >= 200 && x.Status < 300)) {
		var seen []seenPayment
		findPayments(doc, notification, &seen)
		for _, p := range seen {
			e.ensurePayment(ctx, x, p)
		}
		read := notification || x.Method == http.MethodGet
		for _, d := range findDisputes(doc, notification) {
			e.ensureDispute(ctx, x, d, read)
		}
	}
	if x.Status == http.StatusBadRequest && x.Kind == har.KindExchange {
		var body struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal(x.answer(), &body)
		for _, m := range expiredAuthMessages {
			if strings.Contains(body.Error, m) {
				if id := pathPayment(x.Path); id != "" {
					e.ensurePayment(ctx, x, seenPayment{id: id, status: "AUTHORIZED", authExpired: true})
				}
			}
		}
	}
	e.ensureLeftOut(ctx, x)
	e.ensureDisputeRefunds(ctx, x)
}

// movedMoney tells a capture, close or refund the service took.
func movedMoney(x *Exchange) bool {
	if x.Kind != har.KindExchange || x.Method != http.MethodPost || x.Status < 200 || x.Status > 299 {
		return false
	}
	return strings.HasSuffix(x.Path, "/captures") || strings.HasSuffix(x.Path, "/close") || strings.HasSuffix(x.Path, "/refunds")
}

// pathPayment is the payment id of a /api/v2/payments/{id}/... path.
func pathPayment(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if len(parts) >= 4 && parts[2] == "payments" && isUUID(parts[3]) {
		return parts[3]
	}
	return ""
}

// ensurePayment moves the sandbox's payment to the recorded status when
// customers' moves lead there (an approval, then a lapse, may take two).
func (e *Engine) ensurePayment(ctx context.Context, x *Exchange, p seenPayment) {
	sid, ok := e.ids.Get(p.id)
	if !ok {
		return
	}
	for range 2 {
		current, ok := e.sandboxPayment(ctx, x, sid)
		if !ok {
			return
		}
		move := customerMove(current, p, e.lapsed[sid])
		if move == "" || e.contradicted(x, p.id, move) {
			return
		}
		_, err := e.sb.control(ctx, "/_sandbox/payments/"+sid+"/"+move, nil)
		e.act(x, move, p.id, sid, err)
		if err != nil {
			return
		}
		if move == "expire-auth" {
			e.lapsed[sid] = true
		}
	}
}

// contradicted tells a customer's move that the recording's later
// answers rule out: a payment it shows AUTHORIZED or CLOSED after x was
// neither rejected nor abandoned, and one it shows CREATED was not yet
// approved. The answer at x is then not played but compared, and differs
// where the service said it.
func (e *Engine) contradicted(x *Exchange, id, move string) bool {
	if move != "reject" && move != "cancel" && move != "approve" {
		return false
	}
	if e.shown == nil {
		e.shown = shownStatuses(e.rec)
	}
	for _, s := range e.shown[id] {
		if s.n == x.N || !s.at.After(x.started) {
			continue
		}
		if (move != "approve" && (s.status == "AUTHORIZED" || s.status == "CLOSED")) || (move == "approve" && s.status == "CREATED") {
			return true
		}
	}
	return false
}

// shownStatus is a payment's status as one successful answer shows it.
type shownStatus struct {
	n      int
	at     time.Time
	status string
}

// shownStatuses lists, by recorded payment id, the statuses the
// recording's successful answers show.
func shownStatuses(rec *Recording) map[string][]shownStatus {
	out := map[string][]shownStatus{}
	for _, x := range rec.Exchanges {
		if x.Kind != har.KindExchange || x.Status < 200 || x.Status > 299 {
			continue
		}
		doc, ok := decode(x.answer())
		if !ok {
			continue
		}
		var seen []seenPayment
		findPayments(doc, false, &seen)
		for _, p := range seen {
			out[p.id] = append(out[p.id], shownStatus{n: x.N, at: x.started, status: p.status})
		}
	}
	return out
}

// customerMove is the move that takes a payment from current towards what
// the recording shows, "" when none does.
func customerMove(current string, p seenPayment, lapsed bool) string {
	switch {
	case current == "CREATED" && (p.status == "AUTHORIZED" || p.status == "CLOSED"):
		return "approve"
	case current == "CREATED" && p.status == "REJECTED":
		return "reject"
	case current == "CREATED" && p.status == "EXPIRED":
		return "cancel"
	case current == "AUTHORIZED" && p.authExpired && !lapsed:
		return "expire-auth"
	}
	return ""
}

// sandboxPayment reads the status of a sandbox payment, with the key that
// can read it (the exchange's merchant first, then every sandbox key).
func (e *Engine) sandboxPayment(ctx context.Context, x *Exchange, sid string) (string, bool) {
	keys := []string{e.paymentKey[sid], e.key(x)}
	for _, m := range e.sb.Merchants {
		keys = append(keys, m.TestKey, m.LiveKey)
	}
	for _, k := range keys {
		if k == "" {
			continue
		}
		if obj, ok := e.sb.get(ctx, "/api/v2/payments/"+sid, k); ok {
			e.paymentKey[sid] = k
			status, _ := obj["status"].(string)
			return status, status != ""
		}
	}
	return "", false
}

func (e *Engine) act(x *Exchange, what, recorded, sid string, err error) {
	a := Action{Before: x.N, Action: what, Recorded: recorded, SandboxID: sid}
	if err != nil {
		a.Error = err.Error()
	}
	e.actions = append(e.actions, a)
}
