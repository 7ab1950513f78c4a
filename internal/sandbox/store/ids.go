package store

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/google/uuid"
)

// IDSource gives out every id the sandbox generates: sessions, payments,
// captures, refunds, disputes, evidence, attachments, webhooks and
// deliveries. Seeded (Options.Seed, `sandbox serve --seed N`), the ids come
// from a PRNG of their own, so two runs with the same seed and the same
// requests on a fresh state give the same ids; unseeded they are random
// version-4 UUIDs in form whose first 48 bits are the time they were made
// (timeOrdered).
type IDSource struct {
	mu  sync.Mutex
	rng *rand.Rand // nil: crypto-random
}

// NewIDSource answers the ids of a state seeded by seed; 0 gives random
// version-4 UUIDs that begin with the time they were made.
func NewIDSource(seed int64) *IDSource {
	if seed == 0 {
		return &IDSource{}
	}
	return &IDSource{rng: rand.New(rand.NewPCG(uint64(seed), 0x69_64_73))}
}

// NewRandomIDSource is a PRNG source seeded at random: ids that look
// like the seeded ones, different on every run.
func NewRandomIDSource() *IDSource {
	return &IDSource{rng: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))}
}

// Next is the source's next id.
func (g *IDSource) Next() string {
	if g == nil || g.rng == nil {
		return timeOrdered(time.Now())
	}
	var b uuid.UUID
	g.mu.Lock()
	binary.BigEndian.PutUint64(b[:8], g.rng.Uint64())
	binary.BigEndian.PutUint64(b[8:], g.rng.Uint64())
	g.mu.Unlock()
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return b.String()
}

// timeOrdered answers a random version-4 UUID whose first 48 bits are
// the milliseconds of at since 1970 (the other 74 random, crypto/rand's),
// as a UUIDv7 lays out its time, in the form the service's ids have. An
// id made later sorts after one made before (within a millisecond, at
// random): the state's indexes of payment and session ids then grow at
// their end, where the inserts of one commit share pages, rather than at
// a random page each, which a state of many payments writes and copies
// back whole for every checkout (docs/benchmarks.md).
func timeOrdered(at time.Time) string {
	b := uuid.New() // version 4, RFC 4122 variant, 122 random bits
	ms := uint64(at.UnixMilli())
	b[0], b[1], b[2], b[3], b[4], b[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
	return b.String()
}

// NewID is the id of something the request in ctx creates: the next one a
// fixture step asked for (see pinnedStep), else the state's generator's.
func (s *State) NewID(ctx context.Context) string {
	if p := pinnedFrom(ctx); p != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		if len(p.ids) > 0 {
			id := p.ids[0]
			p.ids = p.ids[1:]
			if id != "" {
				return id
			}
		}
	}
	return s.ids.Next()
}

// pinnedStep is one step of a fixture, carried by its request's context:
// the sandbox's "now" is pinned at the step's date, and the ids the step
// creates are the file's, in the order the handler asks for them.
type pinnedStep struct {
	at  time.Time
	mu  sync.Mutex
	ids []string
}

type pinnedKey struct{}

// WithPinnedStep carries one fixture step in ctx: the state's time is at,
// and the ids its request creates are ids, in order.
func WithPinnedStep(ctx context.Context, at time.Time, ids ...string) context.Context {
	return context.WithValue(ctx, pinnedKey{}, &pinnedStep{at: at, ids: ids})
}

func pinnedFrom(ctx context.Context) *pinnedStep {
	if ctx == nil {
		return nil
	}
	p, _ := ctx.Value(pinnedKey{}).(*pinnedStep)
	return p
}

// pinnedNow is the step's date when ctx carries a fixture step.
func pinnedNow(ctx context.Context) (time.Time, bool) {
	if p := pinnedFrom(ctx); p != nil {
		return p.at, true
	}
	return time.Time{}, false
}
