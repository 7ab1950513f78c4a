//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package cmdutil

import "golang.org/x/sys/unix"

// echoOff turns off the echo of the terminal fd, keeping line editing and
// Ctrl-C, and returns what turns it back on as it was.
func echoOff(fd int) (func(), error) {
	old, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, err
	}
	hidden := *old
	hidden.Lflag &^= unix.ECHO
	hidden.Lflag |= unix.ICANON | unix.ISIG
	hidden.Iflag |= unix.ICRNL
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &hidden); err != nil {
		return nil, err
	}
	return func() { _ = unix.IoctlSetTermios(fd, ioctlSetTermios, old) }, nil
}
