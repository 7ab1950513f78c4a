//go:build !unix

package userfile

import (
	"os"
	"time"
)

// openPipe refuses a pipe where named pipes are not files (Windows).
func openPipe(what, name string, _ time.Duration) (*os.File, error) {
	return nil, &Error{What: what, Name: name, Problem: "is not a regular file", Advice: "give a regular file, or - to read stdin"}
}
