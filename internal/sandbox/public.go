package sandbox

import (
	"net"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/extras"
	"github.com/bnpl-cli/bnpl/internal/sandbox/fixture"
	"github.com/bnpl-cli/bnpl/internal/sandbox/middleware"
	"github.com/bnpl-cli/bnpl/internal/sandbox/outbox"
	"github.com/bnpl-cli/bnpl/internal/sandbox/reqlog"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
)

// The public face: the names the rest of the program (and its tests) use,
// each owned by the room that defines it.

type (
	Change          = store.Change
	Clock           = store.Clock
	Delivery        = outbox.Delivery
	DeliveryAttempt = outbox.DeliveryAttempt
	DeliveryFaults  = outbox.DeliveryFaults
	DeliveryFilter  = outbox.DeliveryFilter
	DeliveryRules   = outbox.DeliveryRules
	DrainReport     = outbox.DrainReport
	FakeClock       = store.FakeClock
	FaultKind       = middleware.FaultKind
	FaultSpec       = middleware.FaultSpec
	Fixture         = fixture.Fixture
	FixtureError    = fixture.FixtureError
	Health          = extras.Health
	LogEntry        = reqlog.LogEntry
	LogFilter       = reqlog.LogFilter
	Merchant        = store.Merchant
	StateError      = store.StateError
)

const (
	ClockStep            = store.ClockStep
	DefaultAuthExpiry    = store.DefaultAuthExpiry
	DeliveryFaultDup     = outbox.DeliveryFaultDup
	DeliveryFaultFail    = outbox.DeliveryFaultFail
	DeliveryFaultLate    = outbox.DeliveryFaultLate
	DeliveryFaultReorder = outbox.DeliveryFaultReorder
	DeliveryHeader       = outbox.DeliveryHeader
	EventHeader          = outbox.EventHeader
	Fault429             = middleware.Fault429
	Fault500After        = middleware.Fault500After
	Fault500Before       = middleware.Fault500Before
	FaultDropAfter       = middleware.FaultDropAfter
	FaultLock            = middleware.FaultLock
)

// BuiltinMerchants are the merchants every sandbox has unless told
// otherwise (see store.BuiltinMerchants).
func BuiltinMerchants() []Merchant { return store.BuiltinMerchants() }

// LoadMerchants reads the merchants of a --merchants file (see
// store.LoadMerchants for its format).
func LoadMerchants(path string) ([]Merchant, error) { return store.LoadMerchants(path) }

// NewFakeClock is a clock that stands still at t until moved.
func NewFakeClock(t time.Time) *FakeClock { return store.NewFakeClock(t) }

// MoveStateAside renames a state file and its SQLite companions to
// PATH.broken-TIME and answers the new name (see store.MoveStateAside).
func MoveStateAside(path string, now time.Time) (string, error) {
	return store.MoveStateAside(path, now)
}

// ParseFaultSpec reads the --faults syntax (see middleware.ParseFaultSpec).
func ParseFaultSpec(spec string) (FaultSpec, error) { return middleware.ParseFaultSpec(spec) }

// FaultKinds lists the request fault kinds in the order they are drawn.
func FaultKinds() []FaultKind { return middleware.FaultKinds() }

// DashboardURL is the dashboard's address on a listener.
func DashboardURL(addr net.Addr) string { return extras.DashboardURL(addr) }

// SeededClockStart is where a fixed clock starts unless told otherwise
// (see store.SeededClockStart).
var SeededClockStart = store.SeededClockStart

// CheckClockStart refuses a start a fixed clock cannot take.
func CheckClockStart(t time.Time) error { return store.CheckClockStart(t) }

// ParseFixture reads a fixture file and checks its shape (see
// fixture.ParseFixture); SeedFixture applies it.
func ParseFixture(name string, data []byte) (*fixture.Doc, error) {
	return fixture.ParseFixture(name, data)
}
