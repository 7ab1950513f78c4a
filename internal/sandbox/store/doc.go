// Package store is the sandbox's state: the SQLite database and its schema
// (every migration, in order), the clock and its stored offset, the
// merchants and their keys, the payment records with their lock and the
// one place a payment changes (State.Move, InsertRecord), the settings
// table, the bounds of a stored record, and the errors of a state file
// that cannot be used (StateError, exit code 12). Whoever needs to hear of
// a payment's change registers with State.OnPaymentChangeInTx (to write
// in the change's transaction) or State.OnPaymentChange: the state
// calls nothing above it. It imports edge only.
package store
