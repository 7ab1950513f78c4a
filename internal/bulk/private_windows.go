//go:build windows

package bulk

import "io/fs"

// privateFile reports what makes info unfit for a journal. Windows has no
// mode bits to check: the file's directory ACL decides who reads it.
func privateFile(info fs.FileInfo) string {
	if !info.Mode().IsRegular() {
		return "is not a regular file"
	}
	return ""
}
