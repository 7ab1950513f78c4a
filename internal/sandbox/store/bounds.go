package store

import (
	"fmt"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
)

// checkRecordBounds refuses a move that would make a payment keep more
// captures or refunds than the bounds, or a record whose doc (docLen
// bytes) is over maxRecordBytes. It runs on the record as the move left it, before it is stored.
func checkRecordBounds(rec *Record, docLen int) error {
	switch {
	case len(rec.Payment.Captures) > edge.MaxCapturesPerPayment:
		return edge.BadData(fmt.Sprintf("could not capture: this sandbox keeps at most %d captures per payment", edge.MaxCapturesPerPayment))
	case len(rec.Payment.Refunds) > edge.MaxRefundsPerPayment:
		return edge.BadData(fmt.Sprintf("could not refund: this sandbox keeps at most %d refunds per payment", edge.MaxRefundsPerPayment))
	case docLen > edge.MaxRecordBytes:
		return edge.BadData(fmt.Sprintf("could not update payment: its record would exceed %d MiB, a bound of this sandbox", edge.MaxRecordBytes>>20))
	}
	return nil
}
