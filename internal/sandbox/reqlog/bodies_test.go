package reqlog

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
)

// The writer stores a body from the handler's own buffer, which goes back
// to a pool once its batch is stored and holds the next request's answer:
// every entry still reads back the body it was answered, over rounds that
// reuse those buffers, a body that was masked and one repeated in a batch
// among them.
func TestStoredBodiesOutliveTheirBuffers(t *testing.T) {
	_, l := startLog(t)
	answer := func(round, i int) string {
		switch {
		case i%7 == 3:
			return `{"same":"in every round"}`
		case i%5 == 1:
			return fmt.Sprintf(`{"round":%d,"n":%d,"url":"https://user:pw@host/x"}`, round, i)
		}
		return fmt.Sprintf(`{"round":%d,"n":%d,"pad":%q}`, round, i, strings.Repeat("x", 100*i))
	}
	want := map[string][]byte{} // path -> body as logged
	for round := range 4 {
		h := Middleware(l, "ae", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var n int
			fmt.Sscanf(r.URL.Query().Get("n"), "%d", &n)
			_, _ = w.Write([]byte(answer(round, n)))
		}))
		for i := range 20 {
			path := fmt.Sprintf("/api/v2/payments?round=%d&n=%d", round, i)
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
			want[path] = l.maskBody([]byte(answer(round, i)))
		}
		l.Flush(context.Background())
	}
	got, err := l.RequestLog(context.Background(), LogFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries logged, want %d", len(got), len(want))
	}
	masked := 0
	for _, e := range got {
		if e.ResponseBody != string(want[e.Path]) {
			t.Errorf("%s: logged body %.60q (%d bytes), want %.60q (%d bytes)", e.Path, e.ResponseBody, len(e.ResponseBody), want[e.Path], len(want[e.Path]))
		}
		if strings.Contains(e.ResponseBody, "pw@") {
			t.Errorf("%s: URL credentials stored: %.80q", e.Path, e.ResponseBody)
		}
		if strings.Contains(e.ResponseBody, "https://") && !strings.Contains(e.ResponseBody, "user:pw") {
			masked++
		}
	}
	if masked == 0 {
		t.Fatal("no body was masked: the test does not reach the masking path")
	}
}

// A batch whose bodies outgrow one transaction (sixty answers of 30 KiB
// gathered before one flush) is stored in several, each of about
// logTxBytes, and every entry reads back with its body, in order.
func TestABatchLargerThanATransactionIsStoredWhole(t *testing.T) {
	st, l := startLog(t)
	answer := func(i int) string { return fmt.Sprintf(`{"n":%d,"pad":%q}`, i, strings.Repeat("y", 30<<10)) }
	h := Middleware(l, "ae", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(r.URL.Query().Get("n"), "%d", &n)
		_, _ = w.Write([]byte(answer(n)))
	}))
	const n = 60
	for i := range n {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", fmt.Sprintf("/api/v2/payments?n=%d", i), nil))
	}
	l.Flush(context.Background())
	var chunks int
	if err := st.DB.QueryRow(`SELECT COUNT(*) FROM request_log`).Scan(&chunks); err != nil {
		t.Fatal(err)
	}
	if min := n * (30 << 10) / logTxBytes; chunks < min {
		t.Errorf("%d transactions stored %d bodies of 30 KiB, want %d at least", chunks, n, min)
	}
	got, err := l.RequestLog(context.Background(), LogFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("%d entries logged, want %d", len(got), n)
	}
	for k, e := range got { // newest first
		i := n - 1 - k
		if want := fmt.Sprintf("/api/v2/payments?n=%d", i); e.Path != want || e.ResponseBody != answer(i) {
			t.Errorf("entry %d: %s with a body of %d bytes, want %s with its %d", k, e.Path, len(e.ResponseBody), want, len(answer(i)))
		}
	}
}

func TestTxEntries(t *testing.T) {
	entry := func(req, resp int) *PendingEntry {
		return &PendingEntry{reqBody: make([]byte, req), RespBody: make([]byte, resp)}
	}
	for _, c := range []struct {
		sizes []int
		want  int
	}{
		{[]int{10, 10, 10}, 3},
		{[]int{logTxBytes + 1, 10}, 1},                // one entry at least, however large
		{[]int{logTxBytes / 2, logTxBytes / 2, 1}, 2}, // exactly the bound fits
		{[]int{logTxBytes / 2, logTxBytes/2 + 1}, 1},
	} {
		var batch []*PendingEntry
		for _, s := range c.sizes {
			batch = append(batch, entry(s/2, s-s/2))
		}
		if got := txEntries(batch); got != c.want {
			t.Errorf("sizes %v: %d entries in the first transaction, want %d", c.sizes, got, c.want)
		}
	}
}

// startLog starts a request log over a state in memory.
func startLog(t *testing.T) (*store.State, *Log) {
	t.Helper()
	st, err := store.OpenState("", store.NewSteppingClock(time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)), time.Hour, store.BuiltinMerchants(), 7)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.DB.Close() })
	l := Start(st)
	t.Cleanup(l.Stop)
	return st, l
}

// Trimming the log drops the texts of the chunks it drops and no other:
// past the cap, the texts left are the kept entries' bodies (a body
// repeated in a batch once), and every kept entry reads its own back.
func TestTrimKeepsTheTextsOfTheEntriesKept(t *testing.T) {
	st, l := startLog(t)
	total := MaxLogEntries + 2*LogTrimEvery + 10
	for i := range total {
		p := pendingPool.Get().(*PendingEntry)
		p.At, p.Region, p.Method, p.Status = time.Now(), "ae", "GET", 200
		p.Path = fmt.Sprintf("/api/v2/payments?n=%d", i)
		p.RespBody = []byte(fmt.Sprintf(`{"n":%d}`, i))
		if i%3 == 0 {
			p.RespBody = []byte(`{"same":true}`)
		}
		l.Add(p)
		if i%1500 == 0 {
			l.Flush(context.Background())
		}
	}
	l.Flush(context.Background())
	var entries, texts, distinct int
	if err := st.DB.QueryRow(`SELECT SUM(n) FROM request_log`).Scan(&entries); err != nil {
		t.Fatal(err)
	}
	if err := st.DB.QueryRow(`SELECT COUNT(*) FROM request_log_texts`).Scan(&texts); err != nil {
		t.Fatal(err)
	}
	if entries >= total || entries < MaxLogEntries {
		t.Fatalf("%d entries kept of %d", entries, total)
	}
	got, err := l.RequestLog(context.Background(), LogFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range got {
		var n int
		fmt.Sscanf(e.Path, "/api/v2/payments?n=%d", &n)
		want := fmt.Sprintf(`{"n":%d}`, n)
		if n%3 == 0 {
			want = `{"same":true}`
		}
		if e.ResponseBody != want {
			t.Fatalf("%s: body %q, want %q", e.Path, e.ResponseBody, want)
		}
	}
	if err := st.DB.QueryRow(`SELECT COUNT(*) FROM (SELECT DISTINCT body FROM request_log_texts)`).Scan(&distinct); err != nil {
		t.Fatal(err)
	}
	// Two thirds of the kept entries have a body of their own; the
	// repeated one is stored once per chunk.
	if texts > entries*2/3+64 || texts < entries*2/3 {
		t.Errorf("%d texts for %d entries kept (%d distinct)", texts, entries, distinct)
	}
}

// A large body that packs is stored packed, one that does not (or a
// small one) as it is, and each reads back as it was answered; a packed
// text that does not unpack fails the read rather than show its bytes.
func TestLargeBodiesAreStoredPacked(t *testing.T) {
	st, l := startLog(t)
	var captures []string
	for i := range 40 {
		captures = append(captures, fmt.Sprintf(`{"id":"c-%03d","amount":"1.00","reference_id":"r-%03d","created_at":"2026-11-29T08:00:%02dZ"}`, i, i, i%60))
	}
	payment := `{"id":"p-1","status":"AUTHORIZED","captures":[` + strings.Join(captures, ",") + `]}`
	noise := make([]byte, 3*packFrom)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range noise { // base64's letters at random: nothing repeats
		noise[i] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[rng.IntN(64)]
	}
	answers := map[string]string{
		"/api/v2/payments/large": payment,
		"/api/v2/payments/noise": `"` + string(noise) + `"`,
		"/api/v2/payments/small": `{"id":"p-2"}`,
	}
	for path, body := range answers {
		h := Middleware(l, "ae", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(body)) }))
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
	}
	l.Flush(context.Background())
	got, err := l.RequestLog(context.Background(), LogFilter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range got {
		if e.ResponseBody != answers[e.Path] {
			t.Errorf("%s: read back %.60q, want %.60q", e.Path, e.ResponseBody, answers[e.Path])
		}
	}
	type text struct {
		size   int
		packed bool
	}
	stored := map[string]text{} // by its first byte as stored, "" when packed
	rows, err := st.DB.Query(`SELECT length(body), packed, CASE packed WHEN 0 THEN substr(CAST(body AS TEXT), 1, 1) ELSE '' END FROM request_log_texts`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var tx text
		var first string
		if err := rows.Scan(&tx.size, &tx.packed, &first); err != nil {
			t.Fatal(err)
		}
		stored[first] = tx
	}
	rows.Close()
	if tx := stored[""]; !tx.packed || tx.size >= len(payment)/2 {
		t.Errorf("the payment of 40 captures is stored in %d bytes (packed %v), from %d", tx.size, tx.packed, len(payment))
	}
	if tx := stored[`"`]; tx.packed || tx.size != len(noise)+2 {
		t.Errorf("a body that does not pack is stored in %d bytes (packed %v)", tx.size, tx.packed)
	}
	if tx, ok := stored[`{`]; !ok || tx.packed {
		t.Errorf("the small body is stored as %+v (found %v)", tx, ok)
	}

	if _, err := st.DB.Exec(`UPDATE request_log_texts SET body = X'0badf00d' WHERE packed = 1`); err != nil {
		t.Fatal(err)
	}
	if _, err := l.RequestLog(context.Background(), LogFilter{Limit: 10}); err == nil || !strings.Contains(err.Error(), "request_log_texts row with id") ||
		!strings.Contains(err.Error(), "does not unpack") {
		t.Fatalf("a damaged packed text read as %v", err)
	}
}

// A batch's chunk of entries is stored packed and reads back entry for
// entry; one that does not unpack fails the read as a damaged row.
func TestChunksAreStoredPacked(t *testing.T) {
	st, l := startLog(t)
	h := Middleware(l, "ae", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{}`)) }))
	for i := range 50 {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", fmt.Sprintf("/api/v2/payments/p-%02d", i), nil))
	}
	l.Flush(context.Background())
	var size int
	var packed bool
	if err := st.DB.QueryRow(`SELECT length(entries), packed FROM request_log`).Scan(&size, &packed); err != nil || !packed {
		t.Fatalf("the chunk of 50 entries: %d bytes, packed %v (%v)", size, packed, err)
	}
	got, err := l.RequestLog(context.Background(), LogFilter{Limit: 100})
	if err != nil || len(got) != 50 {
		t.Fatalf("%d entries read back (%v), want 50", len(got), err)
	}
	for i, e := range got {
		if want := fmt.Sprintf("/api/v2/payments/p-%02d", 49-i); e.Path != want || e.ResponseBody != `{}` {
			t.Fatalf("entry %d: %s %q, want %s", i, e.Path, e.ResponseBody, want)
		}
	}
	if _, err := st.DB.Exec(`UPDATE request_log SET entries = X'ff0badf00d'`); err != nil {
		t.Fatal(err)
	}
	if _, err := l.RequestLog(context.Background(), LogFilter{Limit: 10}); err == nil || !strings.Contains(err.Error(), "request_log row with seq 1 cannot be read (it does not unpack)") {
		t.Fatalf("a damaged chunk read as %v", err)
	}
}
