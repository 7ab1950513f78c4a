package payments

import (
	"context"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/bulk"
	"github.com/bnpl-cli/bnpl/internal/config"
)

// move is what one money move (capture, refund, close) adds to the body
// they share (runMove): its words, its checks and its request. The body
// does the rest the same way for each: a file of moves goes to the bulk
// run; otherwise the checks that need no payment, the setup (a live move
// nobody can confirm refused first, order:REF found), the read of the
// payment (sent in a dry run too), the move's own checks, the
// confirmation (a dry run says instead what it would send), the move and
// its result.
type move struct {
	op   bulk.Op
	bulk *BulkOptions
	id   *string
	// before names the move before the payment is known ("capture on");
	// read says what the read before it is for ("captured"); noun is
	// what the result calls it ("capture").
	before, read, noun string
	// early runs the local checks that need no payment; nil for none.
	early func() error
	// prepare checks the payment as read and builds the request. It
	// answers the move in words for the confirmation ("capture 10.00
	// AED on payment … of …") and whether the payment already holds it.
	prepare func(ctx context.Context, client *api.Client, p *api.Payment, target *config.Target) (what string, madeBefore bool, err error)
	// send sends the request prepare built.
	send func(ctx context.Context, client *api.Client) (*api.MoveResult, error)
}

// runMove is the body every money move shares.
func (d *MoveDeps) runMove(ctx context.Context, m move) error {
	if m.bulk.FromFile != "" {
		return bulkRun(ctx, m.op, m.bulk, d)
	}
	if m.early != nil {
		if err := m.early(); err != nil {
			return err
		}
	}
	ms, err := d.setup(ctx, m.before, m.id)
	if err != nil {
		return err
	}
	// The read is harmless, so a dry run makes it too: it settles --full
	// and runs the local checks before printing the move.
	p, err := ms.client.ReadBeforeMove(ctx, *m.id, m.read)
	if err != nil {
		return err
	}
	what, madeBefore, err := m.prepare(ctx, ms.client, p, ms.target)
	if err != nil {
		return err
	}
	if d.DryRun {
		// The request goes to stdout; what it would do, in words, here.
		d.Notice("dry run: would %s; nothing is sent", what)
	} else if err := ms.confirmer.Confirm(what); err != nil {
		return err
	}
	res, err := m.send(ctx, ms.client)
	if err != nil {
		return err
	}
	return d.printMoved(ms.printer, m.noun, res, madeBefore)
}
