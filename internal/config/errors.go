package config

import (
	"fmt"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/secret"
)

// exitUsage is the surface's "local validation failure: nothing was sent".
// It is repeated here rather than imported because cmdutil builds on this
// package, not the other way round.
const exitUsage = 2

// InvalidError is a value refused before anything was sent: a region, a key
// of the wrong kind, a merchant code, a profile name, a base URL. Its message
// names the field and the problem, never a key.
type InvalidError struct {
	Field   string // the config or target field at fault, e.g. "region"
	Problem string
	Advice  string
}

func (e *InvalidError) Error() string { return redactKeys(e.Problem) }

// ExitCode is 2: nothing was sent.
func (e *InvalidError) ExitCode() int { return exitUsage }

// Hint tells what to do next.
func (e *InvalidError) Hint() string { return redactKeys(e.Advice) }

// ProfileNotFoundError is a profile named by --profile, BNPL_PROFILE or
// current_profile that the config does not hold.
type ProfileNotFoundError struct {
	Name   string
	Source string // "flag", "env", "profile" (current_profile) or "" (a direct call)
	Known  []string
}

func (e *ProfileNotFoundError) Error() string {
	from := ""
	switch e.Source {
	case SourceFlag:
		from = " (from --profile)"
	case SourceEnv:
		from = " (from " + EnvProfile + ")"
	case SourceProfile:
		from = " (the config's current_profile)"
	}
	// A key pasted after --profile by mistake must not come back out.
	if len(e.Known) == 0 {
		return redactKeys(fmt.Sprintf("profile %q%s not found: no profiles are configured", e.Name, from))
	}
	return redactKeys(fmt.Sprintf("profile %q%s not found; known profiles: %s", e.Name, from, strings.Join(e.Known, ", ")))
}

// ExitCode is 2: nothing was sent.
func (e *ProfileNotFoundError) ExitCode() int { return exitUsage }

// Hint points at creating the profile, or at choosing an existing one.
func (e *ProfileNotFoundError) Hint() string {
	if len(e.Known) == 0 {
		return redactKeys(fmt.Sprintf("create it with `bnpl login --profile %s`", e.Name))
	}
	return redactKeys(fmt.Sprintf("use one of the known profiles (`bnpl profiles list`), or create it with `bnpl login --profile %s`", e.Name))
}

// ProfileChoiceError is several profiles, none of them chosen, and no key in
// the environment: guessing one could send a request as the wrong merchant,
// and silently falling back to the sandbox would hide the configured ones.
type ProfileChoiceError struct {
	Known []string
}

func (e *ProfileChoiceError) Error() string {
	return redactKeys("several profiles are configured and none is chosen: " + strings.Join(e.Known, ", "))
}

// ExitCode is 2: nothing was sent.
func (e *ProfileChoiceError) ExitCode() int { return exitUsage }

// Hint names the two ways to choose.
func (e *ProfileChoiceError) Hint() string {
	return "pass --profile NAME, or make one the default with `bnpl profiles use NAME`"
}

// MissingKeyError is a profile without the key the command needs.
type MissingKeyError struct {
	Profile string
	Live    bool
}

func (e *MissingKeyError) Error() string {
	if e.Live {
		return redactKeys(fmt.Sprintf("profile %q has no live key (sk_...)", e.Profile))
	}
	return redactKeys(fmt.Sprintf("profile %q has no test key (sk_test_...)", e.Profile))
}

// ExitCode is 2: nothing was sent.
func (e *MissingKeyError) ExitCode() int { return exitUsage }

// Hint gives the unattended login that adds the key; login tells a live key
// from a test key by its prefix.
func (e *MissingKeyError) Hint() string {
	kind := "test"
	if e.Live {
		kind = "live"
	}
	return redactKeys(fmt.Sprintf("add it with `bnpl login --profile %s --with-key` (reads the %s key from stdin)", e.Profile, kind))
}

// FileError is a config file that cannot be understood.
type FileError struct {
	Path    string
	Line    int // 0 when the parser did not say
	Problem string
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return redactKeys(fmt.Sprintf("config file %s, line %d: %s", e.Path, e.Line, e.Problem))
	}
	return redactKeys(fmt.Sprintf("config file %s: %s", e.Path, e.Problem))
}

// ExitCode is 2: nothing was sent.
func (e *FileError) ExitCode() int { return exitUsage }

// Hint says how to get going again without losing the file.
func (e *FileError) Hint() string {
	return fmt.Sprintf("fix the file, or move it aside and run `bnpl login` to write a new one (%s)", e.Path)
}

// redactKeys masks every word of s that starts like a secret key. Errors
// quote what a person typed or a file held (a profile name, a region, a
// line the parser choked on), and a key can end up in any of those places
// by mistake.
func redactKeys(s string) string { return secret.RedactKeys(s) }
