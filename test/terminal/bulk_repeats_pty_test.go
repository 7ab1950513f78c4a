package terminal

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A live bulk run with --allow-repeats asks before it sends: the question
// lists each row that would go as new although it repeats a settled move,
// naming the run, file and row that made it; once confirmed, the run warns
// of that row as it sends it.
func TestLiveBulkConfirmationListsRepeatsOfSettledMoves(t *testing.T) {
	env := ptyEnv(t)
	id := authorizedLivePayment(t, env)
	bnplOut(t, env, "--live", "payments", "capture", id, "--full", "--yes")
	dir := t.TempDir()
	write := func(name, reason string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(fmt.Sprintf("payment_id,amount,reason\n%s,1.00,%s\n", id, reason)), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	day1, day2 := write("day1.csv", "damagd parcel"), write("day2.csv", "damaged parcel")
	bnplOut(t, env, "--live", "payments", "refund", "--input", day1, "--yes")

	r := startPTY(t, env, "--live", "payments", "refund", "--input", day2, "--allow-repeats")
	r.waitOutput(livePrompt)
	// The terminal wraps lines between words: compare the words.
	asked := strings.Join(strings.Fields(r.output()), " ")
	for _, want := range []string{
		"line 2: would go as a new refund with --allow-repeats, although the payment already holds a refund of 1.00 AED under reference_id bnpl-",
		"line 2 of " + day1 + ", which no row of this file accounts for",
		"1 row repeats a settled move of the same payment and amount, going as new with --allow-repeats",
	} {
		if !strings.Contains(asked, want) {
			t.Errorf("the confirmation does not say %q:\n%s", want, r.output())
		}
	}
	r.send("yes\r")
	if code := r.waitExit(60 * time.Second); code != 0 {
		t.Fatalf("exit %d, want 0; terminal:\n%s", code, r.output())
	}
	ran := strings.Join(strings.Fields(r.output()), " ")
	if n := strings.Count(ran, "warning: refund: line 2 goes as a new refund with --allow-repeats, although the payment already holds a refund of 1.00 AED"); n != 1 {
		t.Errorf("the run warned %d times of line 2, want once:\n%s", n, r.output())
	}
	if n := bnplOut(t, env, "--live", "payments", "get", id, "-o", "json", "--jq", ".refunds | length"); n != "2" {
		t.Errorf("the payment holds %s refunds, want 2", n)
	}
}
