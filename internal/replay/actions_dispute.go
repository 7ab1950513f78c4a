package replay

import (
	"context"
	"encoding/json"

	"github.com/bnpl-cli/bnpl/internal/har"
)

// disputeFacts are what the recording tells of a dispute anywhere: what
// opening it again in the sandbox needs.
type disputeFacts struct {
	id, paymentID, reason, amount, status, comment string
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
					amount: str("amount"), status: str("status"), comment: str("comment")})
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
	return out
}

// disputeIndex gathers, over the whole recording, each dispute's reason
// and amount: a notification may tell of a dispute before any answer
// lists it.
func disputeIndex(rec *Recording) map[string]disputeFacts {
	index := map[string]disputeFacts{}
	for _, x := range rec.Exchanges {
		body := x.Answer
		if x.Kind == har.KindNotification {
			body = x.Body
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
		psid, ok := e.ids.Get(d.paymentID)
		if !ok {
			return
		}
		facts := e.disputes[d.id]
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
		if err == nil && json.Unmarshal(raw, &opened) == nil && opened.ID != "" {
			e.ids.Set(d.id, opened.ID)
			sid = opened.ID
		}
		e.act(x, "open dispute", d.id, sid, err)
		if err != nil {
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
