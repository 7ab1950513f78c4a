package sandbox

import (
	"github.com/bnpl-cli/bnpl/internal/sandbox/middleware"
)

// FaultSeed is the seed of the fault draws: Options.Seed, or the one picked
// at random when that was 0, so that a run can be repeated with --seed.
// It is 0 when the sandbox injects no faults.
func (s *Sandbox) FaultSeed() int64 {
	if s.faults == nil {
		return 0
	}
	return s.faults.DrawSeed()
}

// FaultCounts says how many faults of each kind were injected so far.
func (s *Sandbox) FaultCounts() map[middleware.FaultKind]int {
	if s.faults == nil {
		return map[middleware.FaultKind]int{}
	}
	return s.faults.Drawn()
}
