package sandbox

import (
	"github.com/bnpl-cli/bnpl/internal/sandbox/extras"
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
	Health          = extras.Health
	LogEntry        = reqlog.LogEntry
	LogFilter       = reqlog.LogFilter
	Merchant        = store.Merchant
	StateError      = store.StateError
)

const (
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

// BuiltinMerchants is store.BuiltinMerchants.
var BuiltinMerchants = store.BuiltinMerchants

// DashboardURL is extras.DashboardURL.
var DashboardURL = extras.DashboardURL

// FaultKinds is middleware.FaultKinds.
var FaultKinds = middleware.FaultKinds

// LoadMerchants is store.LoadMerchants.
var LoadMerchants = store.LoadMerchants

// MoveStateAside is store.MoveStateAside.
var MoveStateAside = store.MoveStateAside

// NewFakeClock is store.NewFakeClock.
var NewFakeClock = store.NewFakeClock

// ParseFaultSpec is middleware.ParseFaultSpec.
var ParseFaultSpec = middleware.ParseFaultSpec
