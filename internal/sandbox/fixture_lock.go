package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
)

// The seed lease: one seed at a time per state, whatever process runs it.
// Its holder renews it every seedBeat while it works; one that dies lets
// it lapse within seedLeaseFor. A seed that finds it taken waits, looking
// every seedPoll, for at most seedWait.
const (
	seedLease    = "seed"
	seedBeat     = time.Second
	seedLeaseFor = 5 * time.Second
	seedPoll     = 20 * time.Millisecond
	// seedWait stays under a client's default 30 s per request, so that a
	// seed that waited too long hears why.
	seedWait = 20 * time.Second
)

// lockSeeding takes the seed lease for the fixture called name, waiting for
// a seed under way; release gives it back.
func (s *Sandbox) lockSeeding(ctx context.Context, name string) (release func(), err error) {
	// Seeds of this process queue here, so that only one polls the state.
	select {
	case s.seeding <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	h := store.NewLeaseHolder("seeding " + name)
	deadline := time.NewTimer(seedWait)
	defer deadline.Stop()
	for {
		holder, ok, err := s.TakeLease(ctx, seedLease, h, seedLeaseFor)
		if err != nil {
			<-s.seeding
			return nil, err
		}
		if ok {
			break
		}
		select {
		case <-time.After(seedPoll):
			continue
		case <-ctx.Done():
		case <-deadline.C:
		}
		<-s.seeding
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, seedBusy(holder)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(seedBeat)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				rctx, cancel := context.WithTimeout(context.Background(), seedBeat)
				_ = s.RenewLease(rctx, seedLease, h, seedLeaseFor)
				cancel()
			}
		}
	}()
	return func() {
		close(stop)
		<-done
		s.DropLease(seedLease, h)
		<-s.seeding
	}, nil
}

// seedBusy is the refusal of a seed that waited seedWait for another.
func seedBusy(h store.LeaseHolder) error {
	return &edge.Refusal{Status: http.StatusConflict, ErrorType: "conflict",
		Message: fmt.Sprintf("another seed is applying to this sandbox (%s, process %d, since %s, lease %s); nothing was changed: try again once it is done",
			h.What, h.PID, h.Since.Format(time.RFC3339), h.Owner)}
}

// jsonList is a list of ids as a JSON array, for json_each.
func jsonList(ids []string) string {
	if ids == nil {
		ids = []string{}
	}
	b, _ := json.Marshal(ids)
	return string(b)
}
