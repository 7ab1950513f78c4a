package sandbox

import (
	"runtime"
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

func TestServingProcsLeavesTheUsersChoice(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	restore := ServingProcs(func(k string) string { return map[string]string{"GOMAXPROCS": "1"}[k] })
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("with GOMAXPROCS set, serving runs %d Ps, want %d", got, before)
	}
	restore()
}

func TestServingProcsPutsTheDefaultBack(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.SetDefaultGOMAXPROCS()
	def := runtime.GOMAXPROCS(0)
	restore := ServingProcs(func(string) string { return "" })
	if got := runtime.GOMAXPROCS(0); got != def+extraServingProcs {
		t.Errorf("serving: %d Ps, want %d", got, def+extraServingProcs)
	}
	restore()
	if got := runtime.GOMAXPROCS(0); got != def {
		t.Errorf("restored: %d Ps, want %d", got, def)
	}
}
