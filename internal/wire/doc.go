// Package wire is the service's wire format, shared by the client
// (internal/api) and the sandbox (internal/sandbox/...), and importing
// neither: the models of its resources and notifications (each top-level
// resource keeps the bytes it was decoded from, Raw), the statuses, limits
// and reasons the interface document names, and the one set of request
// rules both sides apply to checkout, capture and refund bodies
// (CheckCheckout, CheckMoveItems, CheckAmount: Findings that the client
// prints as its local validation and the sandbox answers the service's way).
package wire
