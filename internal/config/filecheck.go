package config

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

func notRegularError(path, resolved string, info fs.FileInfo) error {
	what := fileKind(info.Mode())
	problem := fmt.Sprintf("config file %s is %s, not a regular file", path, what)
	if resolved != "" {
		problem = fmt.Sprintf("config file %s is a symbolic link to %s, which is %s, not a regular file", path, resolved, what)
	}
	return &InvalidError{Field: "config", Problem: problem + ": bnpl keeps keys only in a regular file",
		Advice: "remove it (rm " + shellQuote(path) + ") and run the command again, or set XDG_CONFIG_HOME to another directory"}
}

func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeDir != 0:
		return "a directory"
	case m&fs.ModeCharDevice != 0, m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// DirWarnings say, one line each, when the directory of the config file,
// or of the file a link at its path leads to, is not private to the user:
// writable by others, who could then replace the file and its keys, or
// owned by another user. Nothing is said on Windows, whose ACLs Unix modes
// do not describe, nor for a directory that does not exist yet.
func (c *Config) DirWarnings() []string {
	if runtime.GOOS == "windows" || c.path == "" {
		return nil
	}
	dirs := []string{filepath.Dir(c.path)}
	if resolved, err := filepath.EvalSymlinks(c.path); err == nil && filepath.Dir(resolved) != dirs[0] {
		dirs = append(dirs, filepath.Dir(resolved))
	}
	var out []string
	for i, dir := range dirs {
		info, err := os.Stat(dir)
		if err != nil {
			continue
		}
		what := "the config file's directory " + dir
		if i > 0 {
			what = "the directory " + dir + " of the file the config link leads to"
		}
		mode := info.Mode()
		switch {
		case mode.Perm()&0o022 != 0:
			out = append(out, fmt.Sprintf("%s can be written by other users (mode %04o), who could replace the config file and its keys; fix with: chmod go-w %s",
				what, mode.Perm(), shellQuote(dir)))
		case !ownedByMe(info):
			out = append(out, fmt.Sprintf("%s belongs to another user, who could replace the config file and its keys; keep the config in a directory of your own (XDG_CONFIG_HOME)", what))
		}
	}
	return out
}

// PermissionWarning is a notice for stderr (without a "warning:" prefix,
// which the caller adds) when the config file can be read
// or changed by other users, with the command that fixes it; "" when the
// file is private or absent. It looks at the file as it is now, so it is
// "" after a Save.
func (c *Config) PermissionWarning() string {
	if runtime.GOOS == "windows" || c.path == "" {
		return "" // Unix mode bits say nothing about Windows ACLs.
	}
	info, err := os.Stat(c.path)
	if err != nil {
		return ""
	}
	mode := info.Mode().Perm()
	if mode&0o077 == 0 {
		return ""
	}
	return fmt.Sprintf("config file %s holds secret keys and is accessible by other users (mode %04o); fix with: chmod 600 %s",
		c.path, mode, shellQuote(c.path))
}

// shellQuote quotes a path for the fix the warning suggests, only when it
// needs it, so the usual path stays easy to read.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '_' || r == '-' || r == '~' ||
			('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z'))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
