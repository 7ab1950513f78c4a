package sandbox

import (
	"runtime/debug"
	"testing"
)

func TestServingGCLeavesTheUsersChoice(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	for _, name := range []string{"GOGC", "GOMEMLIMIT"} {
		env := map[string]string{name: "50"}
		restore := ServingGC(func(k string) string { return env[k] })
		if got := debug.SetGCPercent(100); got != 100 {
			t.Errorf("with %s set, the collector's percent became %d", name, got)
		}
		restore()
	}
}

func TestServingGCPutsItsSettingsBack(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	limit := debug.SetMemoryLimit(-1)
	restore := ServingGC(func(string) string { return "" })
	if got := debug.SetGCPercent(servingGCPercent); got != servingGCPercent {
		t.Errorf("serving: percent %d, want %d", got, servingGCPercent)
	}
	if got := debug.SetMemoryLimit(-1); got != servingMemLimit {
		t.Errorf("serving: memory limit %d, want %d", got, servingMemLimit)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("restored: percent %d, want 100", got)
	}
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Errorf("restored: memory limit %d, want %d", got, limit)
	}
}
