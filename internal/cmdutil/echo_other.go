//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd || windows)

package cmdutil

import "errors"

// echoOff is not done by bnpl itself here: term.ReadPassword hides the read.
func echoOff(int) (func(), error) { return nil, errors.ErrUnsupported }
