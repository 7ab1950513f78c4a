// Package service answers the service's own endpoints, as the interface
// document describes them: authentication, checkout sessions, payments
// (read, update, capture, refund, close, list), disputes and their
// evidence attachments, and the registration of both webhook families.
// Every change of a payment commits through the state's Move; the
// notifications it causes go to the outbox. It imports store, outbox and
// edge.
package service
