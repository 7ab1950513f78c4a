//go:build !unix

package sandbox

// runningAs names this process's user where uids do not apply.
func runningAs() string { return "this user" }

func chownArg() string { return "USER" }

func ownerOf(string) string { return "" }

func ownerArg(string) string { return "UID:GID" }

// mayWriteIn cannot tell without trying where permissions are not uids'.
func mayWriteIn(string) bool { return true }
