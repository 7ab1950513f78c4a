// Package extras answers what the sandbox adds beside the service: the
// /_sandbox control endpoints (the customer's approve, reject and cancel,
// authorization expiry, the clock, disputes opened and resolved, the
// delivery attempts and resend, the request log), the hosted payment
// page, the dashboard and the health check. It imports the rooms below
// it: service, outbox, reqlog, store, middleware (the loopback check) and
// edge.
package extras
