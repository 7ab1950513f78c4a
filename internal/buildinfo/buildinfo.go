// Package buildinfo carries what was built: set by the release through
// -ldflags, else read from the module information `go install` records.
package buildinfo

import "runtime/debug"

// Set with -ldflags "-X github.com/bnpl-cli/bnpl/internal/buildinfo.Version=..."
var (
	Version = ""
	Commit  = ""
	Date    = ""
)

// Info returns version, commit and date, never empty strings.
func Info() (version, commit, date string) {
	version, commit, date = Version, Commit, Date
	if version != "" && commit != "" && date != "" {
		// A release build: the module information is not read (it is
		// parsed from text, on every start).
		return version, commit, date
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && commit == "":
				commit = s.Value
			case s.Key == "vcs.time" && date == "":
				date = s.Value
			}
		}
	}
	if version == "" {
		version = "dev"
	}
	if commit == "" {
		commit = "none"
	}
	if date == "" {
		date = "unknown"
	}
	return version, commit, date
}
