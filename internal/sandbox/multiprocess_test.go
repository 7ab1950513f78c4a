package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
)

const helperEnv = "BNPL_SANDBOX_TEST_HELPER"

// captureMany captures 1.00 count times with references prefix-i, retrying
// a 409 as a client would, and answers how many captures were accepted.
func captureMany(t testing.TB, e *env, id, prefix string, count int) (accepted int, statuses map[int]int) {
	statuses = map[int]int{}
	for i := range count {
		for range 200 {
			r := e.do("ae", "POST", "/api/v2/payments/"+id+"/captures", aeTest,
				map[string]any{"amount": "1.00", "reference_id": fmt.Sprintf("%s-%d", prefix, i)})
			statuses[r.status]++
			if r.status == 200 {
				accepted++
			}
			if r.status != 409 {
				break
			}
		}
	}
	return accepted, statuses
}

// TestHelperCaptureProcess is not a test: TestMultiProcess runs the test
// binary again with helperEnv set, to have real separate processes share
// one state file.
func TestHelperCaptureProcess(t *testing.T) {
	spec := os.Getenv(helperEnv)
	if spec == "" {
		t.Skip("helper process for TestMultiProcess")
	}
	parts := strings.Split(spec, "|") // path|payment id|prefix|count
	count, _ := strconv.Atoi(parts[3])
	e := newEnv(t, Options{StatePath: parts[0], Clock: store.RealClock{}})
	accepted, statuses := captureMany(t, e, parts[1], parts[2], count)
	fmt.Printf("RESULT accepted=%d statuses=%v\n", accepted, statuses)
}

func TestMultiProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := filepath.Join(t.TempDir(), "shared.db")
	e := newEnv(t, Options{StatePath: path, Clock: store.RealClock{}})
	s := e.createSession(checkoutBody("ae-sandbox", "AED", "100.00"), aeTest)
	if _, err := e.sb.Approve(context.Background(), s.ID); err != nil {
		t.Fatal(err)
	}
	id := s.Payment.ID
	const perWorker = 25
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCaptureProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%s|p%d|%d", helperEnv, path, id, w, perWorker))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("helper %d: %v\n%s", w, err, out)
				return
			}
			var accepted int
			for _, line := range strings.Split(string(out), "\n") {
				if rest, ok := strings.CutPrefix(line, "RESULT accepted="); ok {
					accepted, _ = strconv.Atoi(strings.Fields(rest)[0])
					t.Logf("helper %d: %s", w, line)
				}
			}
			mu.Lock()
			total += accepted
			mu.Unlock()
		}()
	}
	accepted, statuses := captureMany(t, e, id, "parent", perWorker)
	wg.Wait()
	t.Logf("parent: accepted=%d statuses=%v", accepted, statuses)
	for status := range statuses {
		if status != 200 && status != 409 {
			t.Fatalf("parent saw status %d", status)
		}
	}
	total += accepted
	p := e.get(id)
	if len(p.Captures) != total || !p.Captured().Equal(decimalFromInt(total)) {
		t.Fatalf("%d captures recorded (%s), %d accepted", len(p.Captures), p.Captured(), total)
	}
	if total != 3*perWorker {
		t.Fatalf("accepted %d captures, want %d", total, 3*perWorker)
	}
}
