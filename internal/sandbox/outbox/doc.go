// Package outbox turns changes into webhook notifications and delivers
// them: the registrations of both webhook families and the URL rules they
// must pass, the outbox rows a change records (it listens to the state's
// payment changes; the dispute endpoints hand it their notifications), the
// one Deliverer that claims, sends and retries them, every attempt's
// record and resend, the delivery rules stored in the state (and the
// serving process's lease), and the webhook chaos faults. It imports
// store and edge.
package outbox
