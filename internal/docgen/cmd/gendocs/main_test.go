package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/bnpl-cli/bnpl/cmd"
	"github.com/bnpl-cli/bnpl/internal/nodns"
)

// TestMain lets the test binary be gendocs, and bnpl, inside scripts.
func TestMain(m *testing.M) {
	nodns.Install()
	testscript.Main(m, map[string]func(){
		"gendocs": main,
		"bnpl":    func() { os.Exit(cmd.Execute()) },
	})
}

// TestScripts runs testdata/script/*.txtar: gendocs as go generate runs it.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("HOME", env.WorkDir+"/home")
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/home/.config")
			env.Setenv("XDG_STATE_HOME", env.WorkDir+"/home/.state")
			env.Setenv("XDG_CACHE_HOME", env.WorkDir+"/home/.cache")
			env.Setenv("NO_COLOR", "1")
			return nil
		},
	})
}
