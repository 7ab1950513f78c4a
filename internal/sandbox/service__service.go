package sandbox

// Service answers the service's own endpoints.
type Service struct {
	*State
	hooks      *deliverer        // webhook rules and delivery workers
	lists      *listCache        // positions in the payments list, see paymentlist.go
	publicURLs map[string]string // region -> base URL

	// refundGuards may refuse a refund for reasons kept outside the
	// payment, such as an active dispute (409 "payment is disputed"); a
	// guard runs with the payment locked.
	refundGuards []func(rec *record) error
}

// newService answers the service's endpoints on st, recording
// notifications in hooks; publicURLs are the regions' base URLs.
func newService(st *State, hooks *deliverer, publicURLs map[string]string) *Service {
	svc := &Service{State: st, hooks: hooks, lists: newListCache(), publicURLs: publicURLs}
	svc.refundGuards = []func(*record) error{svc.disputeRefundGuard}
	return svc
}
