//go:build !unix

package sandbox

// runningAs names this process's user where uids do not apply.
func runningAs() string { return "this user" }

func chownArg() string { return "USER" }

func ownerOf(string) string { return "" }

func ownerArg(string) string { return "UID:GID" }
