package replay

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/bnpl-cli/bnpl/internal/har"
)

// disputeFacts are what the recording tells of a dispute anywhere: what
// opening it again in the sandbox needs.
type disputeFacts struct {
	id, paymentID, reason, amount, status, comment, created string
}

// findDisputes lists the disputes a document shows: dispute objects (an
// id, a payment_id and a reason) or a dispute notification's body.
func findDisputes(v any, notification bool) []disputeFacts {
	var out []disputeFacts
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			str := func(k string) string {
				switch s := t[k].(type) {
				case string:
					return s
				case json.Number:
					return s.String()
				}
				return ""
			}
			if notification && isUUID(str("dispute_id")) {
				out = append(out, disputeFacts{id: str("dispute_id"), paymentID: str("payment_id"), amount: str("amount"), status: str("status")})
			} else if isUUID(str("id")) && isUUID(str("payment_id")) && str("reason") != "" {
				out = append(out, disputeFacts{id: str("id"), paymentID: str("payment_id"), reason: str("reason"),
					amount: str("amount"), status: str("status"), comment: str("comment"), created: str("created_at")})
			}
			for _, c := range t {
				walk(c)
			}
		case []any:
			for _, c := range t {
				walk(c)
			}
		}
	}
	walk(v)
	// Opened in the order the customers opened them, so that the sandbox
	// lists them in the recording's order (RFC 3339 in UTC: text order is
	// time order). Lists are newest first: of two opened in the same
	// instant, the one listed later was opened first.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].created < out[j].created })
	return out
}

// disputeIndex gathers, over the whole recording, each dispute's reason
// and amount: a notification may tell of a dispute before any answer
// lists it.
func disputeIndex(rec *Recording) map[string]disputeFacts {
	index := map[string]disputeFacts{}
	for _, x := range rec.Exchanges {
		body := x.answer()
		if x.Kind == har.KindNotification {
			body = x.body()
		}
		v, ok := decode(body)
		if !ok {
			continue
		}
		for _, d := range findDisputes(v, x.Kind == har.KindNotification) {
			have := index[d.id]
			if have.reason == "" {
				have.reason = d.reason
			}
			if have.comment == "" {
				have.comment = d.comment
			}
			if have.amount == "" {
				have.amount = d.amount
			}
			if have.paymentID == "" {
				have.paymentID = d.paymentID
			}
			if have.created == "" {
				have.created = d.created
			}
			have.id = d.id
			index[d.id] = have
		}
	}
	return index
}

// ensureDispute opens in the sandbox a dispute the recording shows and
// no request opened (the customer opened it), and, when the step only
// reads (read), moves a dispute the recording shows in another status to
// that status (support moved it).
func (e *Engine) ensureDispute(ctx context.Context, x *Exchange, d disputeFacts, read bool) {
	sid, known := e.ids.Get(d.id)
	if !known {
		// Every dispute the customers opened before this one is opened
		// first, in order: a notification may tell of a later one first,
		// as deliveries race.
		for _, earlier := range e.unopenedBefore(d) {
			if e.openDispute(ctx, x, earlier) != nil {
				return
			}
		}
		if sid, known = e.ids.Get(d.id); !known {
			return
		}
	}
	if !read || d.status == "" {
		return
	}
	if current := e.sandboxDisputeStatus(ctx, sid); current == "" || current == d.status {
		return
	}
	_, err := e.sb.control(ctx, "/_sandbox/disputes/"+sid+"/resolve", map[string]string{"status": d.status})
	e.act(x, "move dispute to "+d.status, d.id, sid, err)
}

// unopenedBefore lists, oldest first, the recording's disputes the replay
// has not opened yet, on payments it made, opened no later than d.
func (e *Engine) unopenedBefore(d disputeFacts) []disputeFacts {
	facts := e.disputes[d.id]
	if facts.id == "" {
		facts = d
	}
	var out []disputeFacts
	for id, f := range e.disputes {
		_, opened := e.ids.Get(id)
		_, paid := e.ids.Get(f.paymentID)
		if id != d.id && !opened && paid && f.created != "" && f.created <= facts.created {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].created != out[j].created {
			return out[i].created < out[j].created
		}
		return out[i].id < out[j].id
	})
	return append(out, facts)
}

// openDispute opens a dispute in the sandbox as its customer did.
func (e *Engine) openDispute(ctx context.Context, x *Exchange, facts disputeFacts) error {
	psid, ok := e.ids.Get(facts.paymentID)
	if !ok {
		return nil
	}
	body := map[string]any{"reason": facts.reason}
	if facts.reason == "" {
		body["reason"] = "product_issue"
	}
	if facts.amount != "" {
		body["amount"] = facts.amount
	}
	if facts.comment != "" {
		body["comment"] = facts.comment
	}
	raw, err := e.sb.control(ctx, "/_sandbox/payments/"+psid+"/dispute", body)
	var opened struct {
		ID string `json:"id"`
	}
	sid := ""
	if err == nil && json.Unmarshal(raw, &opened) == nil && opened.ID != "" {
		e.ids.Set(facts.id, opened.ID)
		sid = opened.ID
	}
	e.act(x, "open dispute", facts.id, sid, err)
	return err
}

func (e *Engine) sandboxDisputeStatus(ctx context.Context, sid string) string {
	for _, m := range e.sb.Merchants {
		if obj, ok := e.sb.get(ctx, "/api/v1/disputes/"+sid, m.LiveKey); ok {
			if d, ok := obj["dispute"].(map[string]any); ok {
				s, _ := d["status"].(string)
				return s
			}
		}
	}
	return ""
}
