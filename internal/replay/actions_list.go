package replay

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"sync"

	"github.com/bnpl-cli/bnpl/internal/har"
)

// ensureLeftOut plays the customer's move on a payment that a complete
// list of new payments (GET /api/v2/payments?status=new, every one on its
// page) leaves out, though the replay made it as the account's and a
// later answer shows it moved on: it had moved before the list (an
// approval through the hosted page, seen first in the list of authorized
// payments that follows).
func (e *Engine) ensureLeftOut(ctx context.Context, x *Exchange) {
	q, err := url.ParseQuery(x.Query)
	if err != nil || x.Method != http.MethodGet || x.Path != "/api/v2/payments" || x.Status/100 != 2 ||
		q.Get("status") != "new" || (q.Get("offset") != "" && q.Get("offset") != "0") {
		return
	}
	var list struct {
		Payments []struct {
			ID string `json:"id"`
		} `json:"payments"`
		Pagination struct {
			TotalCount int `json:"total_count"`
		} `json:"pagination"`
	}
	if json.Unmarshal(x.answer(), &list) != nil || list.Pagination.TotalCount != len(list.Payments) {
		return
	}
	listed := map[string]bool{}
	for _, p := range list.Payments {
		listed[p.ID] = true
	}
	if e.shown == nil {
		e.shown = shownStatuses(e.rec)
	}
	ids := make([]string, 0, len(e.shown))
	for id := range e.shown {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		statuses := e.shown[id]
		sid, ok := e.ids.Get(id)
		if !ok || listed[id] {
			continue
		}
		if _, same := e.sb.get(ctx, "/api/v2/payments/"+sid, e.key(x)); !same {
			continue // another merchant's, or the other mode's
		}
		for _, s := range statuses {
			if s.at.After(x.started) {
				if s.status != "CREATED" {
					e.ensurePayment(ctx, x, seenPayment{id: id, status: s.status})
				}
				break
			}
		}
	}
}

// disputeRefund finds the refunds a dispute's resolution made ("dispute
// ID refunded") in an answer.
var disputeRefund = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"dispute ([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}) refunded"`)
})

// ensureDisputeRefunds plays, before an answer that lists a refund a
// dispute's resolution made, that dispute opened and refunded, though the
// recording shows the dispute itself only later (support refunded it
// between two reads).
func (e *Engine) ensureDisputeRefunds(ctx context.Context, x *Exchange) {
	if x.Kind != har.KindExchange || x.Status/100 != 2 {
		return
	}
	for _, m := range disputeRefund().FindAllStringSubmatch(string(x.answer()), -1) {
		if f, ok := e.disputes[m[1]]; ok {
			f.status = "refunded"
			e.ensureDispute(ctx, x, f, true)
		}
	}
}
