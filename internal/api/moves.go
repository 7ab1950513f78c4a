package api

// MoveResult is the outcome of a capture, refund or close.
type MoveResult struct {
	// Payment as the service answered it, or as read back when reconciled.
	Payment *Payment
	// ReferenceID sent with the move (captures and refunds).
	ReferenceID string
	// Reconciled is true when an attempt's outcome was unknown, a later
	// answer refused the move, and a fresh read of the payment showed the
	// move with our reference_id had been made after all.
	Reconciled bool
	// Attempts is how many requests were sent.
	Attempts int
}
