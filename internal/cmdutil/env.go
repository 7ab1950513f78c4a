package cmdutil

import (
	"strconv"
	"strings"
)

// Truthy reads a yes/no environment variable: 1, true, yes (any case) are
// yes; anything else, empty included, is no.
func Truthy(v string) bool {
	v = strings.TrimSpace(v)
	if b, err := strconv.ParseBool(v); err == nil {
		return b
	}
	return strings.EqualFold(v, "yes")
}

// InCI tells whether the CI variable says bnpl runs in a CI job: set to
// anything but empty, 0, false or no (GitHub Actions, GitLab CI and most
// others set CI=true).
func InCI(getenv func(string) string) bool {
	v := strings.TrimSpace(getenv("CI"))
	if v == "" {
		return false
	}
	if b, err := strconv.ParseBool(v); err == nil {
		return b
	}
	return !strings.EqualFold(v, "no")
}
