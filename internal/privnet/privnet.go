// Package privnet runs a test inside a private network and mount
// namespace of its own (unshare -n -m), with a hosts file of the test's
// choosing bound over /etc/hosts and addresses of its choosing on the
// namespace's loopback interface: a test can then make localhost resolve
// elsewhere, and listen there, without touching the machine. Used only by
// tests.
package privnet

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// childVar marks the run inside the namespace.
const childVar = "PRIVNET_CHILD_RUN" // a test's, not bnpl's: no BNPL_ name

// Run answers true inside the namespace, where the test goes on to check
// what it means to. Outside, it runs the test (t.Name()) again inside one
// whose /etc/hosts holds hosts and whose loopback interface also holds
// addrs (IPv4, each as /32), fails t when that run fails, and answers
// false: the test then ends. It needs Linux, root and unshare; without
// them the test is skipped, except in CI (CI set), where it fails.
func Run(t *testing.T, hosts string, addrs ...string) bool {
	t.Helper()
	if os.Getenv(childVar) == "1" {
		return true
	}
	unshare, err := exec.LookPath("unshare")
	if runtime.GOOS != "linux" || err != nil || os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI runs this test as root on Linux with unshare (os %s, uid %d, unshare: %v)", runtime.GOOS, os.Geteuid(), err)
		}
		t.Skip("needs Linux, root and unshare for a private network namespace")
	}
	file := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(file, []byte(hosts), 0o644); err != nil {
		t.Fatal(err)
	}
	script := []string{"mount --bind " + file + " /etc/hosts", "ip link set lo up"}
	for _, a := range addrs {
		script = append(script, "ip addr add "+a+"/32 dev lo")
	}
	script = append(script, fmt.Sprintf(`exec "$0" -test.run '^%s$' -test.count=1 -test.v`, t.Name()))
	cmd := exec.Command(unshare, "-n", "-m", "sh", "-c", strings.Join(script, " && "), os.Args[0])
	cmd.Env = append(os.Environ(), childVar+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the run in a private namespace failed: %v\n%s", err, out)
	}
	t.Logf("%s", out)
	return false
}

// Elsewhere is the address LocalhostElsewhere gives localhost: on the
// namespace's own loopback interface, but not a loopback address.
const Elsewhere = "10.200.0.1"

// LocalhostElsewhere is Run with a hosts file that maps localhost to
// Elsewhere.
func LocalhostElsewhere(t *testing.T) bool {
	t.Helper()
	return Run(t, Elsewhere+" localhost\n", Elsewhere)
}

// Serve serves h at Elsewhere and, on the same port, at each of also (such
// as 127.0.0.1) until the test ends, and answers the port:
// http://localhost:PORT then reaches the one localhost resolves to.
func Serve(t *testing.T, h http.Handler, also ...string) int {
	t.Helper()
	far, err := net.Listen("tcp", Elsewhere+":0")
	if err != nil {
		t.Fatal(err)
	}
	port := far.Addr().(*net.TCPAddr).Port
	listeners := []net.Listener{far}
	for _, host := range also {
		l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			t.Fatal(err)
		}
		listeners = append(listeners, l)
	}
	for _, l := range listeners {
		srv := &http.Server{Handler: h}
		go func() { _ = srv.Serve(l) }()
		t.Cleanup(func() { _ = srv.Close() })
	}
	return port
}
