// Package paysearch finds payments the service has no filter for: by the
// merchant's order number and by the buyer. The service lists payments by
// status only, so a search walks the status sets that together hold every
// payment once, and matches rows here.
package paysearch

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/walk"
)

// EveryStatus are the filters a search walks to see every status once: the
// default set (authorized and closed), then the ones it leaves out.
// "cancelled" also holds closed payments with nothing captured, which the
// default set has shown already; only its expired ones are new (Repeats).
var EveryStatus = []string{"", "rejected", "new", "cancelled"}

// Repeats tells whether p, read under the status filter status during a
// search of every status, is one the default set has shown already.
func Repeats(status string, p *api.Payment) bool {
	return status == "cancelled" && p.Status != api.StatusExpired
}

// Pages reads the pages of one payments list for the walker.
func Pages(client *api.Client, params api.ListPaymentsParams) walk.Fetch {
	return pages(client.ListPayments, params)
}

// pages reads the pages of one payments list with list.
func pages(list func(context.Context, api.ListPaymentsParams) (*api.PaymentList, error), params api.ListPaymentsParams) walk.Fetch {
	return func(ctx context.Context, offset, limit int) (walk.Page, error) {
		p := params
		p.Offset, p.Limit = offset, limit
		page, err := list(ctx, p)
		if err != nil {
			return walk.Page{}, err
		}
		items := make([]walk.Item, len(page.Payments))
		for i := range page.Payments {
			pay := &page.Payments[i]
			items[i] = walk.Item{ID: pay.ID, Raw: pay.Raw()}
			if pay.CreatedAt != nil {
				items[i].Time = *pay.CreatedAt
			}
		}
		return walk.Page{Items: items, Total: page.Pagination.TotalCount}, nil
	}
}

// Order is the result of ByOrder: the payments of one order number, newest
// first within each status set, and how many payments were read.
type Order struct {
	Payments []api.Payment
	Searched int
}

// ByOrder finds every payment whose order number is ref, in every status.
// It walks the status sets at once, each to its end (an order number may
// have been used twice, and the caller must know): one walk of the whole
// list, each set with concurrency pages in flight (the sets other than the
// default one are short, and end soon). The pages are read even in a dry
// run (SearchPayments): finding the payment changes nothing.
func ByOrder(ctx context.Context, client *api.Client, ref string, concurrency int, progress func(read, total int)) (*Order, error) {
	var (
		mu     sync.Mutex
		res    = &Order{}
		counts = make([][2]int, len(EveryStatus))
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	per := max(1, concurrency)
	errs := make(chan error, len(EveryStatus))
	found := make([][]api.Payment, len(EveryStatus))
	for i, status := range EveryStatus {
		go func() {
			params := api.ListPaymentsParams{Status: status, Limit: api.MaxPageLimit}
			w := &walk.Walker{Fetch: pages(client.SearchPayments, params), PageSize: api.MaxPageLimit, Concurrency: per}
			if progress != nil {
				w.Progress = func(read, total int) {
					mu.Lock()
					defer mu.Unlock()
					counts[i] = [2]int{read, total}
					r, t := 0, 0
					for _, c := range counts {
						r, t = r+c[0], t+c[1]
					}
					progress(r, t)
				}
			}
			errs <- w.Walk(ctx, func(it walk.Item) (bool, error) {
				var p api.Payment
				if err := json.Unmarshal(it.Raw, &p); err != nil {
					return false, err
				}
				if Repeats(status, &p) {
					return true, nil
				}
				mu.Lock()
				res.Searched++
				mu.Unlock()
				if p.Order != nil && p.Order.ReferenceID == ref {
					found[i] = append(found[i], p)
				}
				return true, nil
			})
		}()
	}
	var first error
	for range EveryStatus {
		// The first failure stops the other sets: the answer would be
		// incomplete, and an incomplete "not found" is a wrong one.
		if err := <-errs; err != nil && first == nil {
			first = err
			cancel()
		}
	}
	if first != nil {
		return nil, first
	}
	for _, ps := range found {
		res.Payments = append(res.Payments, ps...)
	}
	return res, nil
}
