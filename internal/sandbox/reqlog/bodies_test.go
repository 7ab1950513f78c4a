package reqlog

import (
	"context"
	"fmt"
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
	st, err := store.OpenState("", store.NewSteppingClock(time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)), time.Hour, store.BuiltinMerchants(), 7)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.DB.Close() })
	l := Start(st)
	t.Cleanup(l.Stop)
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
