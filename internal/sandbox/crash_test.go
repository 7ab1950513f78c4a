package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/wire"
)

const crashServeEnv = "BNPL_SANDBOX_TEST_CRASH_SERVE"

// TestHelperCrashServeProcess is not a test: TestAcknowledgedWritesSurviveKill
// runs the test binary again with crashServeEnv naming a state file, to
// serve it in a process of its own that the test kills.
func TestHelperCrashServeProcess(t *testing.T) {
	path := os.Getenv(crashServeEnv)
	if path == "" {
		t.Skip("helper process for TestAcknowledgedWritesSurviveKill")
	}
	err := Serve(context.Background(), ServeOptions{
		AEAddr: "127.0.0.1:0", SAAddr: "127.0.0.1:0",
		Options: Options{StatePath: path, Clock: store.RealClock{}, AllowLocalWebhooks: true},
		Ready: func(l Listening) error {
			fmt.Printf("READY %s\n", l.LocalURLs["ae"])
			return nil
		},
	}, io.Discard)
	t.Fatalf("serve ended: %v", err)
}

// Every write a served sandbox answered 2xx is in its state after the
// process is killed (SIGKILL, no chance to flush or close) in the middle
// of a write load, and no move is half there: each payment's captures add
// up to what it says it captured, its status agrees, and no reference is
// captured twice. Every capture in the state has its notification in the
// outbox (to a loopback webhook the test serves): a move and its
// notification commit together.
func TestAcknowledgedWritesSurviveKill(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns and kills a process")
	}
	path := filepath.Join(t.TempDir(), "state.db")
	seed := newEnv(t, Options{StatePath: path, Clock: store.RealClock{}, AllowLocalWebhooks: true})
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	defer receiver.Close()
	seed.registerPaymentHook(aeTest, receiver.URL+"/hooks", nil)
	ids := make([]string, 24)
	for i := range ids {
		ids[i] = seed.authorized("1000.00")
	}
	seed.sb.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCrashServeProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashServeEnv+"="+path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	base := waitReady(t, stdout)

	// Sixteen clients capture 0.01 at a time, each on payments of its own,
	// each with a fresh reference; the process is killed once 400 captures
	// have been acknowledged, while the clients are still sending.
	const clients, killAfter = 16, 400
	var mu sync.Mutex
	got := map[string]map[string]bool{} // payment -> acknowledged references
	total := 0
	reached := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				id := ids[(c+n*clients)%len(ids)]
				ref := fmt.Sprintf("k%d-%d", c, n)
				status, err := postCapture(client, base, id, ref)
				if err != nil {
					return // the process is gone
				}
				if status != 200 {
					continue
				}
				mu.Lock()
				if got[id] == nil {
					got[id] = map[string]bool{}
				}
				got[id][ref] = true
				total++
				if total >= killAfter {
					once.Do(func() { close(reached) })
				}
				mu.Unlock()
			}
		}()
	}
	<-reached
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed = true
	_ = cmd.Wait()
	wg.Wait()

	notified := capturesNotified(t, path)
	after := newEnv(t, Options{StatePath: path, Clock: store.RealClock{}})
	stored := 0
	for _, id := range ids {
		p := after.get(id)
		stored += len(p.Captures)
		checkWhole(t, p)
		have := map[string]bool{}
		for _, c := range p.Captures {
			have[c.ReferenceID] = true
			if !notified[c.ID] {
				t.Errorf("payment %s: capture %s (%s) is in the state but its notification is not in the outbox", id, c.ID, c.ReferenceID)
			}
		}
		for ref := range got[id] {
			if !have[ref] {
				t.Errorf("payment %s: capture %s was answered 200 but is not in the state after the kill", id, ref)
			}
		}
	}
	t.Logf("%d captures acknowledged before the kill, %d in the state after it, %d announced in the outbox", total, stored, len(notified))
}

// capturesNotified reads the outbox of the state file at path, as the
// killed process left it: the captures that a notification announced
// (each move's notification names the payment's captures, the newest
// last).
func capturesNotified(t *testing.T, path string) map[string]bool {
	t.Helper()
	db, err := store.OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT payload FROM deliveries WHERE kind = 'payment' AND event IN ('captured', 'closed')`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var payload []byte
		var n wire.PaymentNotification
		if err := rows.Scan(&payload); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(payload, &n); err != nil {
			t.Fatal(err)
		}
		if len(n.Captures) > 0 {
			out[n.Captures[len(n.Captures)-1].ID] = true
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkWhole fails t when p is not a whole payment: its captures must add
// up to no more than its amount, each reference once, and a payment
// captured in full must be closed.
func checkWhole(t *testing.T, p *wire.Payment) {
	t.Helper()
	sum := decimal.Zero
	refs := map[string]bool{}
	for _, c := range p.Captures {
		sum = sum.Add(c.Amount)
		if c.ReferenceID != "" && refs[c.ReferenceID] {
			t.Errorf("payment %s: reference %s captured twice", p.ID, c.ReferenceID)
		}
		refs[c.ReferenceID] = true
	}
	if !sum.Equal(p.Captured()) || sum.GreaterThan(p.Amount) {
		t.Errorf("payment %s: captures add up to %s, captured %s of %s", p.ID, sum, p.Captured(), p.Amount)
	}
	if sum.Equal(p.Amount) && p.Status != wire.StatusClosed {
		t.Errorf("payment %s: captured in full but %s", p.ID, p.Status)
	}
}

// waitReady reads the helper's output until it says where it answers.
func waitReady(t *testing.T, r io.Reader) string {
	t.Helper()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if url, ok := strings.CutPrefix(sc.Text(), "READY "); ok {
			go func() { _, _ = io.Copy(io.Discard, r) }()
			return url
		}
	}
	t.Fatalf("the served sandbox ended before it was ready: %v", sc.Err())
	return ""
}

func postCapture(client *http.Client, base, id, ref string) (int, error) {
	body := fmt.Sprintf(`{"amount": "0.01", "reference_id": %q}`, ref)
	req, err := http.NewRequest("POST", base+"/api/v2/payments/"+id+"/captures", strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+aeTest)
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode, nil
}
