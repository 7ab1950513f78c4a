package replay

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/har"
	"github.com/bnpl-cli/bnpl/internal/httpserve"
	"github.com/bnpl-cli/bnpl/internal/webhook"
)

// hookSet is the webhooks the verifier registers in the sandbox so that
// it sends notifications (to a receiver on loopback that answers 200):
// the sandbox's outbox then holds what it sent, to compare with the
// notifications the recording holds.
type hookSet struct {
	srv     *http.Server
	ids     map[string]bool // the verifier's webhooks
	removes []func(ctx context.Context)
	refused string
}

// verifierURL is where the verifier's webhooks point in the sandbox in
// memory, which looks no host name up: a public name its URL rules admit
// as the service's would, and that it never dials. Its outbox still holds
// each notification, which is all the comparison reads.
const verifierURL = "https://bnpl-verify.example.com/notifications"

// startHooks registers a payment webhook in each mode the recorded
// payment notifications came in, and a dispute webhook when there are
// dispute notifications: at verifierURL in the sandbox in memory, at a
// receiver on loopback in a served one (which admits it only with
// --allow-local-webhooks, and may look names up and deliver).
func (e *Engine) startHooks(ctx context.Context) (*hookSet, error) {
	if e.sb.Hermetic {
		hs := &hookSet{ids: map[string]bool{}}
		e.registerHooks(ctx, hs, verifierURL)
		return hs, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	lim := httpserve.Limits{MaxConns: 64, MaxBodies: 16}
	hs := &hookSet{ids: map[string]bool{}, srv: lim.Server(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
		w.WriteHeader(http.StatusOK)
	}))}
	go hs.srv.Serve(lim.Listener(ln))
	e.registerHooks(ctx, hs, "http://"+ln.Addr().String()+"/bnpl-verify")
	return hs, nil
}

func (e *Engine) registerHooks(ctx context.Context, hs *hookSet, url string) {
	m := e.fallback
	modes := map[bool]bool{}
	disputes := false
	for _, x := range e.rec.Exchanges {
		if x.Kind != har.KindNotification {
			continue
		}
		n := webhook.Classify(x.body())
		if n.Kind == webhook.KindDispute {
			disputes = true
			continue
		}
		var body struct {
			IsTest *bool `json:"is_test"`
		}
		_ = json.Unmarshal(x.body(), &body)
		modes[body.IsTest == nil || *body.IsTest] = true
	}
	for test := range modes {
		key := m.LiveKey
		if test {
			key = m.TestKey
		}
		hs.register(ctx, e.sb, "/api/v1/webhooks", key, m.Code, map[string]any{"url": url, "is_test": test})
	}
	if disputes {
		hs.register(ctx, e.sb, "/api/v1/dispute-webhooks", m.LiveKey, m.Code, map[string]any{"url": url})
	}
}

func (hs *hookSet) register(ctx context.Context, sb *Target, path, key, code string, body map[string]any) {
	b, _ := json.Marshal(body)
	h := http.Header{"Authorization": {"Bearer " + key}, "Content-Type": {"application/json"}, "X-Merchant-Code": {code}}
	ans, err := sb.Do(ctx, http.MethodPost, path, "", h, b)
	if err != nil || ans.Status != http.StatusOK {
		why := "no answer"
		if err == nil {
			why = fmt.Sprintf("%d %s", ans.Status, bytes.TrimSpace(ans.Body))
		}
		hs.refused = "the sandbox refused the verifier's webhook at " + fmt.Sprint(body["url"]) + " (" + why + "): start it with --allow-local-webhooks"
		return
	}
	var hook struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(ans.Body, &hook) != nil || hook.ID == "" {
		return
	}
	hs.ids[hook.ID] = true
	hs.removes = append(hs.removes, func(ctx context.Context) {
		_, _ = sb.Do(ctx, http.MethodDelete, path+"/"+hook.ID, "", h, nil)
	})
}

func (hs *hookSet) stop(ctx context.Context, e *Engine) {
	for _, rm := range hs.removes {
		rm(ctx)
	}
	// What the sandbox still sends is of no use now.
	if hs.srv != nil {
		_ = hs.srv.Close()
	}
}

// sent is a notification either side sent.
type sent struct {
	x       *Exchange // the recorded one (nil for the sandbox's)
	event   string
	payload any // a recorded one's is read when its record is compared
	raw     []byte
	at      time.Time // when the sandbox made it (the sandbox's)
	// rank and sum are a recorded one's progress and the SHA-256 of its
	// body, kept while the others wait their turn.
	rank int
	sum  [sha256.Size]byte
}

// replayMark is when a recorded request began to be replayed.
type replayMark struct {
	at time.Time
	x  *Exchange
}

// heard tells whether the recording's receiver was still listening when
// the request that made a sandbox notification at was sent: the recording
// holds a notification received after that request began. A receiver
// that had stopped (listen --max, a closed pipe) heard nothing more, so
// what the sandbox sent then is no difference.
func (e *Engine) heard(at time.Time) bool {
	var cause *Exchange
	for _, m := range e.replayed {
		if m.at.After(at) {
			break
		}
		cause = m.x
	}
	if cause == nil {
		return true
	}
	for _, x := range e.rec.Exchanges {
		if x.Kind == har.KindNotification && !x.started.Before(cause.started) {
			return true
		}
	}
	return false
}

// compareNotifications compares, for each payment and dispute of which
// the recording holds notifications and which the replay made, the
// notifications: which events (a duplicate the service sent again counts
// once), their order, and each payload's fields.
func (e *Engine) compareNotifications(ctx context.Context, hs *hookSet) ([]Difference, int) {
	if hs.refused != "" {
		e.notes = append(e.notes, Note{Why: "notifications not compared: " + hs.refused})
		return nil, 0
	}
	recorded, order := e.recordedNotifications()
	var diffs []Difference
	compared := 0
	for _, subject := range order {
		sid, _ := e.ids.Get(subject)
		mine := e.sandboxNotifications(ctx, sid, hs.ids)
		list := recorded[subject]
		for i := range list {
			list[i].payload, _ = decode(list[i].x.body())
		}
		d, n := e.compareSubject(list, mine)
		delete(recorded, subject)
		diffs = append(diffs, d...)
		compared += n
	}
	return diffs, compared
}

// recordedNotifications groups the recording's notifications by the
// payment or dispute they tell of, leaving out exact repeats and those of
// records the replay did not make. Their payloads are not kept: each
// record's are read back when it is compared.
func (e *Engine) recordedNotifications() (map[string][]sent, []string) {
	by := map[string][]sent{}
	var order []string
	for _, x := range e.rec.Exchanges {
		if x.Kind != har.KindNotification {
			continue
		}
		raw := x.body()
		n := webhook.Classify(raw)
		subject := n.ID
		if n.Kind == webhook.KindDispute {
			subject = n.DisputeID
		}
		if _, ok := e.ids.Get(subject); !ok || subject == "" {
			e.notes = append(e.notes, Note{N: x.N, Method: x.Method, Path: x.Path,
				Why: "a notification of " + subject + ", which the replay did not make"})
			continue
		}
		sum := sha256.Sum256(bytes.TrimSpace(raw))
		repeat := false
		for _, s := range by[subject] {
			if s.sum == sum {
				repeat = true
			}
		}
		if repeat {
			continue
		}
		if _, ok := by[subject]; !ok {
			order = append(order, subject)
		}
		payload, _ := decode(raw)
		by[subject] = append(by[subject], sent{x: x, event: n.Event, rank: progress(payload), sum: sum})
	}
	for _, list := range by {
		sort.SliceStable(list, func(i, j int) bool { return list[i].rank < list[j].rank })
	}
	return by, order
}

// progress orders a payment's notifications as the service sent them,
// whatever order they arrived in (deliveries race, and the service
// promises no order): by the moves the payload holds, then by status. A
// dispute's keep the order they arrived in.
func progress(payload any) int {
	obj, ok := payload.(map[string]any)
	if !ok || obj["dispute_id"] != nil {
		return 0
	}
	count := func(k string) int {
		list, _ := obj[k].([]any)
		return len(list)
	}
	status, _ := obj["status"].(string)
	rank := map[string]int{"created": 0, "authorized": 1, "rejected": 2, "expired": 2, "closed": 3}[strings.ToLower(status)]
	return (count("captures")+count("refunds"))*10 + rank
}

// sandboxNotifications are the notifications the sandbox sent to the
// verifier's webhooks about one payment or dispute, oldest first.
func (e *Engine) sandboxNotifications(ctx context.Context, sid string, hooks map[string]bool) []sent {
	ans, err := e.sb.Do(ctx, http.MethodGet, "/_sandbox/deliveries", "subject="+sid+"&limit=500", nil, nil)
	if err != nil || ans.Status != http.StatusOK {
		return nil
	}
	var list struct {
		Deliveries []struct {
			WebhookID string          `json:"webhook_id"`
			Payload   json.RawMessage `json:"payload"`
			CreatedAt time.Time       `json:"created_at"`
		} `json:"deliveries"`
	}
	if json.Unmarshal(ans.Body, &list) != nil {
		return nil
	}
	var out []sent
	for i := len(list.Deliveries) - 1; i >= 0; i-- {
		d := list.Deliveries[i]
		if !hooks[d.WebhookID] {
			continue
		}
		payload, _ := decode(d.Payload)
		out = append(out, sent{event: webhook.Classify(d.Payload).Event, payload: payload, raw: d.Payload, at: d.CreatedAt})
	}
	return out
}

// closest is the sandbox's notification to pair with a recorded one: of
// those of the same event not yet paired, the one whose payload differs
// least (an update and a refund of a refunded payment both read as
// "refunded"), the earliest of equals; -1 when none.
func (e *Engine) closest(r sent, mine []sent, used []bool) int {
	best, fewest := -1, 0
	for i, m := range mine {
		if used[i] || m.event != r.event {
			continue
		}
		c := &comparer{ids: e.ids.clone()}
		c.value("$", "", r.payload, m.payload)
		if best < 0 || len(c.diffs) < fewest {
			best, fewest = i, len(c.diffs)
		}
	}
	return best
}

// compareSubject pairs one record's notifications by event, in order.
func (e *Engine) compareSubject(recorded, mine []sent) ([]Difference, int) {
	var diffs []Difference
	used := make([]bool, len(mine))
	type pair struct{ progress, at int }
	var pairs []pair
	for _, r := range recorded {
		base := Difference{N: r.x.N, Method: r.x.Method, Path: r.x.Path, Side: "notification"}
		j := e.closest(r, mine, used)
		if j < 0 {
			d := base
			d.Field, d.Kind, d.Want, d.Got = "event", DiffNotified, show(r.event), Absent
			diffs = append(diffs, d)
			continue
		}
		used[j] = true
		pairs = append(pairs, pair{progress(r.payload), j})
		c := &comparer{ids: e.ids, base: base}
		c.value("$", "", r.payload, mine[j].payload)
		diffs = append(diffs, c.diffs...)
	}
	// Only what the payloads order is an order: of two notifications of
	// one state (an update and the refund before it) the service promises
	// none.
	ordered := true
	for i := range pairs {
		for j := i + 1; j < len(pairs); j++ {
			if pairs[i].progress < pairs[j].progress && pairs[i].at > pairs[j].at {
				ordered = false
			}
		}
	}
	if len(recorded) > 0 {
		base := Difference{N: recorded[len(recorded)-1].x.N, Method: recorded[0].x.Method, Path: recorded[0].x.Path, Side: "notification"}
		if !ordered {
			d := base
			d.Field, d.Kind, d.Want, d.Got = "event", DiffOrder, "the recording's order", "another order"
			diffs = append(diffs, d)
		}
		for i, m := range mine {
			if !used[i] && !e.heard(m.at) {
				e.notes = append(e.notes, Note{N: base.N, Method: base.Method, Path: base.Path,
					Why: "the sandbox notified " + m.event + " after the recording's receiver had heard its last notification (it had stopped listening)"})
				continue
			}
			if !used[i] {
				d := base
				d.Field, d.Kind, d.Want, d.Got = "event", DiffNotified, Absent, show(m.event)
				diffs = append(diffs, d)
			}
		}
	}
	return diffs, len(recorded)
}
