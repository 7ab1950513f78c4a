// Package middleware holds what wraps a region's whole handler: the
// injected faults and latency (and the --faults syntax, delivery faults
// included), the test keys' rate limit, and the browser guard of the
// /_sandbox/ paths with the loopback check of the control endpoints. It
// imports store, outbox (for the delivery faults' syntax) and edge.
package middleware
