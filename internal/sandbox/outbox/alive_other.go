//go:build !unix

package outbox

// processAlive cannot tell here: a lease is trusted until it lapses.
func processAlive(int) bool { return true }
