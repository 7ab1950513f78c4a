// Package testbnpl makes a test binary the real bnpl for the end-to-end
// tests of test/: the binary is linked once per test package, and
// testscript puts it on the PATH as `bnpl` (and as any other program the
// package names), so a script, a pseudo-terminal or a pipe runs bnpl as a
// user's shell would. No test, and no bnpl a test runs, may look a name up
// in DNS, and its keychain is never the operating system's: see useKeychain.
package testbnpl

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/zalando/go-keyring"

	"github.com/bnpl-cli/bnpl/cmd"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/nodns"
)

// Main is a test package's TestMain: it runs the tests with `bnpl` (and
// the programs of more) on the PATH, each the test binary itself.
func Main(m *testing.M, more map[string]func()) {
	nodns.Install()
	programs := map[string]func(){
		"bnpl": func() {
			useKeychain(os.Getenv("TEST_KEYCHAIN"))
			recordFromEnv()
			os.Exit(cmd.Execute())
		},
	}
	for name, run := range more {
		programs[name] = run
	}
	testscript.Main(m, programs)
}

// FreeAddr is a loopback address no one listens on, for a server a test
// starts.
func FreeAddr() (string, error) {
	handedOut.Lock()
	defer handedOut.Unlock()
	for range 64 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", fmt.Errorf("no free port: %w", err)
		}
		addr := strings.Replace(l.Addr().String(), "[::1]", "127.0.0.1", 1)
		l.Close()
		// The kernel may hand a port just closed out again: two scripts
		// (or one script's two sandboxes) must never be given the same.
		if !handedOut.ports[addr] {
			handedOut.ports[addr] = true
			return addr, nil
		}
	}
	return "", fmt.Errorf("no free port not handed out before")
}

// handedOut are the addresses FreeAddr gave this process.
var handedOut = struct {
	sync.Mutex
	ports map[string]bool
}{ports: map[string]bool{}}

// useKeychain gives the bnpl of a test a keychain that outlives the
// process, as the real one does, without touching the machine's: mode is
// the path of a JSON file of entries, "none" for a keychain that is not
// there (the error the Secret Service gives on a headless machine), or
// "hang" for one that never answers (the time-out is shortened so that the
// test does not wait seconds). An empty mode still refuses the real
// keychain.
func useKeychain(mode string) {
	switch mode {
	case "", "none":
		//lint:ignore ST1005 the Secret Service's own words, as a headless machine says them
		config.UseKeychainStore(keychain{err: errors.New("The name org.freedesktop.secrets was not provided by any .service files")}, time.Second)
	case "hang":
		config.UseKeychainStore(keychain{hang: true}, 300*time.Millisecond)
	default:
		config.UseKeychainStore(keychain{path: mode}, time.Second)
	}
}

// keychain is a config.KeychainStore kept in one JSON file.
type keychain struct {
	path string
	err  error
	hang bool
}

func (k keychain) load() (map[string]string, error) {
	if k.hang {
		select {}
	}
	if k.err != nil {
		return nil, k.err
	}
	entries := map[string]string{}
	b, err := os.ReadFile(k.path)
	if errors.Is(err, os.ErrNotExist) {
		return entries, nil
	}
	if err != nil {
		return nil, err
	}
	return entries, json.Unmarshal(b, &entries)
}

func (k keychain) save(entries map[string]string) error {
	b, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(k.path, b, 0o600)
}

// Set keeps a secret.
func (k keychain) Set(service, account, secret string) error {
	entries, err := k.load()
	if err != nil {
		return err
	}
	entries[service+" "+account] = secret
	return k.save(entries)
}

// Get reads a secret; keyring.ErrNotFound when there is none.
func (k keychain) Get(service, account string) (string, error) {
	entries, err := k.load()
	if err != nil {
		return "", err
	}
	v, ok := entries[service+" "+account]
	if !ok {
		return "", keyring.ErrNotFound
	}
	return v, nil
}

// Delete removes a secret; keyring.ErrNotFound when there is none.
func (k keychain) Delete(service, account string) error {
	entries, err := k.load()
	if err != nil {
		return err
	}
	if _, ok := entries[service+" "+account]; !ok {
		return keyring.ErrNotFound
	}
	delete(entries, service+" "+account)
	return k.save(entries)
}
