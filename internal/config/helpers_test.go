package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// Keys used across the tests. Their middles are distinctive so a leak is
// easy to find: a masked key shows only the last four characters.
const (
	profTestKey = "sk_test_PROFTESTMIDDLE_0001"
	profLiveKey = "sk_PROFLIVEMIDDLE_0002"
	envTestKey  = "sk_test_ENVTESTMIDDLE_0003"
	envLiveKey  = "sk_ENVLIVEMIDDLE_0004"
)

// keyMiddles are the parts of the test keys that must never appear in an
// error, a message or rendered output.
var keyMiddles = []string{"PROFTESTMIDDLE", "PROFLIVEMIDDLE", "ENVTESTMIDDLE", "ENVLIVEMIDDLE", "FILEKEYMIDDLE", "STDINMIDDLE"}

func envOf(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

func assertNoKey(t *testing.T, what, text string) {
	t.Helper()
	for _, m := range keyMiddles {
		if strings.Contains(text, m) {
			t.Errorf("%s leaks a key (%s): %q", what, m, text)
		}
	}
}

// assertUsageError checks an error is exit code 2 with a hint, and that
// neither its message nor its hint holds a key.
func assertUsageError(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		t.Fatal("want an error, got nil")
	}
	var coded interface{ ExitCode() int }
	if !errors.As(err, &coded) || coded.ExitCode() != 2 {
		t.Errorf("error %q: want exit code 2", err)
	}
	var hinted interface{ Hint() string }
	if !errors.As(err, &hinted) || hinted.Hint() == "" {
		t.Errorf("error %q: want a hint", err)
	} else {
		assertNoKey(t, "hint", hinted.Hint())
	}
	assertNoKey(t, "error", err.Error())
}

// newConfig is a config in a temp dir holding the given profiles, not yet
// saved.
func newConfig(t *testing.T, profiles ...Profile) *Config {
	t.Helper()
	c, err := Load(filepath.Join(t.TempDir(), "bnpl", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range profiles {
		if err := c.SetProfile(p); err != nil {
			t.Fatal(err)
		}
	}
	return c
}
