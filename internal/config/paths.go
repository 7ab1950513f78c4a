package config

import "path/filepath"

// DefaultPath is where the config lives: $XDG_CONFIG_HOME/bnpl/config.yaml,
// else $HOME/.config/bnpl/config.yaml. getenv is injected so that tests
// never touch the real home. It is "" when neither variable gives an
// absolute directory; Load refuses that with advice.
func DefaultPath(getenv func(string) string) string {
	dir := xdgDir(getenv, "XDG_CONFIG_HOME", ".config")
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "bnpl", "config.yaml")
}

// StateDir is where bnpl keeps state that is not configuration, such as the
// embedded sandbox's database: $XDG_STATE_HOME/bnpl, else
// $HOME/.local/state/bnpl. It is "" when neither variable is usable.
func StateDir(getenv func(string) string) string {
	dir := xdgDir(getenv, "XDG_STATE_HOME", filepath.Join(".local", "state"))
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "bnpl")
}

// xdgDir follows the XDG base directory rule that a relative value is
// ignored: it would make the file's place depend on the working directory.
func xdgDir(getenv func(string) string, variable, underHome string) string {
	if getenv == nil {
		return ""
	}
	if dir := getenv(variable); dir != "" && filepath.IsAbs(dir) {
		return dir
	}
	// USERPROFILE stands in for HOME on Windows, where HOME is often unset.
	for _, homeVar := range []string{"HOME", "USERPROFILE"} {
		if home := getenv(homeVar); home != "" && filepath.IsAbs(home) {
			return filepath.Join(home, underHome)
		}
	}
	return ""
}
