package sandbox

import (
	"fmt"
)

// checkRecordBounds refuses a move that would make a payment keep more
// captures or refunds than the bounds, or a record over maxRecordBytes.
// It runs on the record as the move left it, before it is stored.
func checkRecordBounds(rec *record, doc []byte) error {
	switch {
	case len(rec.Payment.Captures) > maxCapturesPerPayment:
		return badData(fmt.Sprintf("could not capture: this sandbox keeps at most %d captures per payment", maxCapturesPerPayment))
	case len(rec.Payment.Refunds) > maxRefundsPerPayment:
		return badData(fmt.Sprintf("could not refund: this sandbox keeps at most %d refunds per payment", maxRefundsPerPayment))
	case len(doc) > maxRecordBytes:
		return badData(fmt.Sprintf("could not update payment: its record would exceed %d MiB, a bound of this sandbox", maxRecordBytes>>20))
	}
	return nil
}
