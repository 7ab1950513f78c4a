package api

// MoveResult is the outcome of a capture, refund or close.
type MoveResult struct {
	// Payment as the service answered it, or as read back when reconciled.
	Payment *Payment
	// ReferenceID sent with the move (captures and refunds).
	ReferenceID string
	// Reconciled is true when the move's own answers did not confirm it (an
	// attempt's outcome was unknown, or a refusal answered a re-run of the
	// same caller-supplied reference_id) and a fresh read of the payment
	// showed the move with our reference_id (and amount) had been made
	// after all; for close, that the payment is CLOSED.
	Reconciled bool
	// Attempts is how many requests were sent for the move itself, not
	// counting the read of the payment.
	Attempts int
}
