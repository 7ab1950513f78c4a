package service

import (
	"github.com/bnpl-cli/bnpl/internal/sandbox/outbox"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
)

// Service answers the service's own endpoints.
type Service struct {
	*store.State
	Outbox     *outbox.Deliverer // webhook rules and delivery workers
	lists      *listCache        // positions in the payments list, see paymentlist.go
	PublicURLs map[string]string // region -> base URL

	// RefundGuards may refuse a refund for reasons kept outside the
	// payment, such as an active dispute (409 "payment is disputed"); a
	// guard runs with the payment locked.
	RefundGuards []func(rec *store.Record) error
}

// NewService answers the service's endpoints on st, recording
// notifications in hooks; publicURLs are the regions' base URLs.
func NewService(st *store.State, hooks *outbox.Deliverer, publicURLs map[string]string) *Service {
	svc := &Service{State: st, Outbox: hooks, lists: newListCache(), PublicURLs: publicURLs}
	svc.RefundGuards = []func(*store.Record) error{svc.disputeRefundGuard}
	return svc
}
