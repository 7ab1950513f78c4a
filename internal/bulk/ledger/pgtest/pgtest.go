// Package pgtest starts a throwaway PostgreSQL server for tests: a
// cluster of its own in a temporary directory, on a loopback port and a
// socket in that directory, stopped and removed when the tests end.
//
// It runs Debian's (or any) PostgreSQL server binaries: PG_BIN names
// their directory, else the newest /usr/lib/postgresql/*/bin, else the
// PATH. As root (initdb refuses root) the server runs as the user
// bnpltest when there is one (.ci/run makes it), else nobody. Without the
// binaries a test is skipped, unless CI=true, where it fails: CI installs
// them.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

// Server is a running throwaway cluster.
type Server struct {
	bin, dir, data string
	Port           int
	// Password is the superuser's (user "bnpl").
	Password string
	runAs    *user.User
	mu       sync.Mutex
	dbs      int
}

// Admin is the superuser's URL of database db.
func (s *Server) Admin(db string) string {
	return fmt.Sprintf("postgres://bnpl:%s@127.0.0.1:%d/%s?sslmode=disable", s.Password, s.Port, db)
}

// binDir finds the server's binaries; "" when there are none.
func binDir() string {
	if d := os.Getenv("PG_BIN"); d != "" {
		return d
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi > vj
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p)
	}
	return ""
}

// Available says why no server can be started here, or "".
func Available() string {
	if binDir() == "" {
		return "no PostgreSQL server binaries (initdb, pg_ctl): install Debian's postgresql package, or set PG_BIN"
	}
	return ""
}

// Require skips t when no server can be started here, and fails it under
// CI=true, which must run every test.
func Require(t testing.TB) {
	t.Helper()
	if why := Available(); why != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: %s", why)
		}
		t.Skip(why)
	}
}

// Start makes and starts a cluster; Stop removes it.
func Start() (*Server, error) {
	bin := binDir()
	if bin == "" {
		return nil, fmt.Errorf("%s", Available())
	}
	dir, err := os.MkdirTemp("", "bnpl-pgtest-")
	if err != nil {
		return nil, err
	}
	var pw [12]byte
	_, _ = rand.Read(pw[:])
	s := &Server{bin: bin, dir: dir, data: filepath.Join(dir, "data"), Password: hex.EncodeToString(pw[:])}
	if os.Geteuid() == 0 {
		if s.runAs, err = user.Lookup("bnpltest"); err != nil {
			if s.runAs, err = user.Lookup("nobody"); err != nil {
				return nil, fmt.Errorf("running as root, and no user bnpltest or nobody to run PostgreSQL as")
			}
		}
		uid, _ := strconv.Atoi(s.runAs.Uid)
		gid, _ := strconv.Atoi(s.runAs.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
	}
	pwfile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwfile, []byte(s.Password+"\n"), 0o600); err != nil {
		return nil, err
	}
	s.chown(pwfile)
	if out, err := s.run("initdb", "-D", s.data, "-U", "bnpl", "--pwfile", pwfile, "--auth", "scram-sha-256",
		"--no-sync", "-E", "UTF8", "--locale", "C"); err != nil {
		s.Stop()
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	if s.Port, err = freePort(); err != nil {
		s.Stop()
		return nil, err
	}
	if err := s.start(); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// start starts the server on its port, waiting until it takes
// connections. fsync is off (the machine does not crash under a test),
// but never synchronous_commit: a commit the server answered must outlive
// Restart's immediate stop, as it outlives a real server's crash.
func (s *Server) start() error {
	opts := fmt.Sprintf("-p %d -k %s -h 127.0.0.1 -c fsync=off -c full_page_writes=off", s.Port, s.dir)
	out, err := s.run("pg_ctl", "-D", s.data, "-l", filepath.Join(s.dir, "log"), "-o", opts, "-w", "-t", "60", "start")
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
		return fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	return nil
}

// Restart stops the server at once (every session is cut, as a crash
// cuts them) and starts it again on the same port.
func (s *Server) Restart() error {
	if out, err := s.run("pg_ctl", "-D", s.data, "-m", "immediate", "-w", "stop"); err != nil {
		return fmt.Errorf("pg_ctl stop: %v\n%s", err, out)
	}
	return s.start()
}

// Stop stops the server and removes its directory.
func (s *Server) Stop() {
	if s.Port != 0 {
		_, _ = s.run("pg_ctl", "-D", s.data, "-m", "immediate", "-w", "stop")
	}
	_ = os.RemoveAll(s.dir)
}

// NewDatabase makes an empty database and returns its superuser URL.
func (s *Server) NewDatabase(t testing.TB) string {
	t.Helper()
	s.mu.Lock()
	s.dbs++
	name := fmt.Sprintf("ledger_%d", s.dbs)
	s.mu.Unlock()
	s.Exec(t, "postgres", "CREATE DATABASE "+name)
	return s.Admin(name)
}

// Exec runs statements as the superuser in database db.
func (s *Server) Exec(t testing.TB, db string, stmts ...string) {
	t.Helper()
	conn, err := sql.Open("pgx", s.Admin(db))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, st := range stmts {
		if _, err := conn.ExecContext(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
}

// run runs one of the server's binaries, as the user the server runs as.
func (s *Server) run(name string, args ...string) ([]byte, error) {
	path := filepath.Join(s.bin, name)
	var cmd *exec.Cmd
	if s.runAs != nil {
		cmd = exec.Command("runuser", append([]string{"-u", s.runAs.Username, "--", path}, args...)...)
	} else {
		cmd = exec.Command(path, args...)
	}
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	// The server outlives this call: it must not get the test's signals.
	detach(cmd)
	return cmd.CombinedOutput()
}

// chown gives path to the user the server runs as.
func (s *Server) chown(path string) {
	if s.runAs == nil {
		return
	}
	uid, _ := strconv.Atoi(s.runAs.Uid)
	gid, _ := strconv.Atoi(s.runAs.Gid)
	_ = os.Chown(path, uid, gid)
}

// freePort is a loopback port no one listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Shared is one server for a test binary: started by the first test that
// asks, stopped by Done (from TestMain).
var (
	sharedOnce sync.Once
	shared     *Server
	sharedErr  error
)

// Get is the test binary's server, started on first use; t is skipped or
// failed as Require says when there can be none.
func Get(t testing.TB) *Server {
	t.Helper()
	Require(t)
	sharedOnce.Do(func() { shared, sharedErr = Start() })
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

// Done stops the test binary's server, if one was started.
func Done() {
	if shared != nil {
		shared.Stop()
	}
}

// Quote is s as an SQL string literal.
func Quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
