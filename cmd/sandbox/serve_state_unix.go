//go:build unix

package sandbox

import (
	"fmt"
	"os"
	"syscall"
)

// runningAs names this process's user: "uid 65532".
func runningAs() string { return fmt.Sprintf("uid %d", os.Getuid()) }

// chownArg is the chown argument that gives a directory to this user.
func chownArg() string { return fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid()) }

// ownerOf names the owner of path ("uid 0, gid 0"), "" when unknown.
func ownerOf(path string) string {
	info, err := os.Stat(path)
	if err != nil {
		return ""
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("uid %d, gid %d", st.Uid, st.Gid)
}

// ownerArg is the --user argument of the owner ownerOf named.
func ownerArg(owner string) string {
	var uid, gid int
	if _, err := fmt.Sscanf(owner, "uid %d, gid %d", &uid, &gid); err != nil {
		return "UID:GID"
	}
	return fmt.Sprintf("%d:%d", uid, gid)
}

// mayWriteIn tells whether this user may create files in dir (write and
// search permission), without creating one.
func mayWriteIn(dir string) bool { return syscall.Access(dir, 0x2|0x1) == nil }
