package sandbox

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/middleware"
	"github.com/bnpl-cli/bnpl/internal/sandbox/reqlog"
)

// rawLog reads every stored byte of the request log, as a person reading
// the state file would.
func rawLog(t *testing.T, db *sql.DB) string {
	t.Helper()
	var all strings.Builder
	for _, q := range []string{`SELECT entries FROM request_log`, `SELECT hash || body FROM request_log_bodies`, `SELECT body FROM request_log_texts`} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var b []byte
			if err := rows.Scan(&b); err != nil {
				t.Fatal(err)
			}
			all.Write(b)
			all.WriteString("\n")
		}
		rows.Close()
	}
	return all.String()
}

func TestRequestLogNeverHoldsAKeyOrAHeaderValue(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.db")
	e := newDisputeEnv(t, Options{StatePath: state, AllowLocalWebhooks: true})
	const hookValue = "hv-9f3c1e77aa41"
	const shortValue = "abc"
	e.registerPaymentHook(aeTest, "https://hooks.shop-example.com/a", map[string]any{"title": "X-Sig", "value": hookValue})
	e.registerPaymentHook(aeTest, "https://hooks.shop-example.com/b", map[string]any{"title": "X-Sig", "value": shortValue})
	// The dispute-webhook family, with the value also echoed elsewhere.
	e.doRaw("ae", "POST", "/api/v1/dispute-webhooks", map[string]string{"Authorization": "Bearer " + aeLive, "X-Merchant-Code": "ae-sandbox"},
		map[string]any{"url": "https://hooks.shop-example.com/d", "header": map[string]any{"title": "X-D", "value": hookValue}, "note": hookValue})
	// A key in the body, in the query, and a key nobody has.
	e.do("ae", "POST", "/api/v2/checkout", aeTest, map[string]any{"merchant_code": "ae-sandbox", "description": "my key is " + aeLive})
	e.do("ae", "GET", "/api/v2/payments?key="+aeTest, aeTest, nil)
	e.do("ae", "GET", "/api/v2/payments", "sk_test_not_a_known_key_1234", nil)
	e.authorized("10.00")

	list, err := e.sb.RequestLog(context.Background(), reqlog.LogFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) < 7 {
		t.Fatalf("logged %d requests", len(list))
	}
	raw := rawLog(t, e.sb.DB)
	for _, secretValue := range []string{aeTest, aeLive, hookValue, `"value":"` + shortValue + `"`, "sk_test_not_a_known_key_1234"} {
		if strings.Contains(raw, secretValue) {
			t.Errorf("the stored log holds %q:\n%s", secretValue, raw)
		}
	}
	b, _ := json.Marshal(list)
	if strings.Contains(string(b), hookValue) || strings.Contains(string(b), aeTest) {
		t.Errorf("the answered log holds a secret: %s", b)
	}
	// What is kept is still useful: the masked key, the merchant, the mode.
	var sawKey bool
	for _, en := range list {
		if en.Key == "sk_test_****dbox" && en.MerchantCode == "ae-sandbox" && en.Mode == "test" {
			sawKey = true
		}
	}
	if !sawKey {
		t.Errorf("no entry names the masked key, merchant and mode: %s", b)
	}
}

func TestRequestLogRecordsErrorsAndFilters(t *testing.T) {
	e := newEnv(t, Options{})
	e.do("ae", "GET", "/api/v2/payments/not-an-id", aeTest, nil)
	e.do("ae", "GET", "/api/v2/payments", "", nil)
	id := e.authorized("12.00")
	e.do("ae", "GET", "/api/v2/payments/"+id, aeTest, nil)
	e.ctl("POST", "/_sandbox/clock/advance?by=1m", nil) // not a service path: not logged

	all, err := e.sb.RequestLog(context.Background(), reqlog.LogFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range all {
		if strings.HasPrefix(en.Path, "/_sandbox") {
			t.Fatalf("logged a control request: %+v", en)
		}
	}
	four, err := e.sb.RequestLog(context.Background(), reqlog.LogFilter{Status: "4xx"})
	if err != nil {
		t.Fatal(err)
	}
	if len(four) != 2 || four[0].Status != 401 || four[0].Error == "" || four[1].Status != 400 || four[1].ErrorType != "bad_data" {
		t.Fatalf("4xx entries: %+v", four)
	}
	byPath, _ := e.sb.RequestLog(context.Background(), reqlog.LogFilter{Path: "/api/v2/payments/*"})
	if len(byPath) != 2 || byPath[0].Path != "/api/v2/payments/"+id || byPath[0].Status != 200 || !strings.Contains(byPath[0].ResponseBody, id) {
		t.Fatalf("by path: %+v", byPath)
	}
	prefix, _ := e.sb.RequestLog(context.Background(), reqlog.LogFilter{Path: "/api/v2/checkout"})
	if len(prefix) != 1 || prefix[0].Method != http.MethodPost || !strings.Contains(prefix[0].RequestBody, "ae-sandbox") {
		t.Fatalf("by prefix: %+v", prefix)
	}
	after, _ := e.sb.RequestLog(context.Background(), reqlog.LogFilter{After: all[1].Seq})
	if len(after) != 1 || after[0].Seq != all[0].Seq {
		t.Fatalf("after the cursor: %+v", after)
	}
	future, _ := e.sb.RequestLog(context.Background(), reqlog.LogFilter{Since: time.Now().Add(time.Hour)})
	if len(future) != 0 {
		t.Fatalf("since: %+v", future)
	}
	if _, err := e.sb.RequestLog(context.Background(), reqlog.LogFilter{Status: "6xx"}); err == nil {
		t.Fatal("6xx accepted")
	}
}

func TestRequestLogKeepsTheLastEntriesAndCutsBodies(t *testing.T) {
	e := newEnv(t, Options{})
	big := strings.Repeat("x", reqlog.MaxLoggedBody+100)
	e.do("ae", "POST", "/api/v2/checkout", aeTest, map[string]any{"description": big})
	list, _ := e.sb.RequestLog(context.Background(), reqlog.LogFilter{})
	if len(list) != 1 || !list[0].Truncated || len(list[0].RequestBody) > reqlog.MaxLoggedBody {
		t.Fatalf("a big body: truncated %v, %d bytes", list[0].Truncated, len(list[0].RequestBody))
	}
	// Fill past the cap straight through the writer, as a long run would.
	for i := 0; i < reqlog.MaxLogEntries+reqlog.LogTrimEvery+10; i++ {
		e.sb.Log.Add(&reqlog.PendingEntry{At: time.Now(), Region: "ae", Method: "GET", Path: fmt.Sprintf("/api/v2/payments?n=%d", i), Status: 200})
		if i%1000 == 0 {
			e.sb.Log.Flush(context.Background())
		}
	}
	e.sb.Log.Flush(context.Background())
	var n int
	if err := e.sb.DB.QueryRow(`SELECT SUM(n) FROM request_log`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n > reqlog.MaxLogEntries+reqlog.LogBatchSize+reqlog.LogTrimEvery || n < reqlog.MaxLogEntries {
		t.Fatalf("%d entries kept", n)
	}
}

func TestNoRequestLog(t *testing.T) {
	e := newEnv(t, Options{NoRequestLog: true})
	e.do("ae", "GET", "/api/v2/payments", aeTest, nil)
	var n int
	if err := e.sb.DB.QueryRow(`SELECT COUNT(*) FROM request_log`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d entries, %v", n, err)
	}
	r := e.ctl("GET", "/_sandbox/logs", nil)
	wantError(t, r, 409, "conflict", "this sandbox keeps no request log: it was started with --no-request-log")
}

// TestRequestLogMeasuresLatency: the latency of an entry runs from the
// start of handling to the end of the answer, so a request held by the
// latency fault is logged as taking at least that long.
func TestRequestLogMeasuresLatency(t *testing.T) {
	spec, err := middleware.ParseFaultSpec("latency=20ms")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Options{Faults: spec})
	e.do("ae", "GET", "/api/v2/payments", aeTest, nil)
	list, err := e.sb.RequestLog(context.Background(), reqlog.LogFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("logged %d requests", len(list))
	}
	if list[0].LatencyMS < 20 {
		t.Errorf("latency_ms = %g, want at least the injected 20", list[0].LatencyMS)
	}
}

// TestRequestLogCountsAndPages: the count answered beside a page is every
// match, and Before pages back from the oldest entry of a page.
func TestRequestLogCountsAndPages(t *testing.T) {
	e := newEnv(t, Options{})
	for range 5 {
		e.do("ae", "GET", "/api/v2/payments/not-an-id", aeTest, nil)
	}
	for range 3 {
		e.do("ae", "GET", "/api/v2/payments", aeTest, nil)
	}
	ctx := context.Background()
	for _, c := range []struct {
		f    reqlog.LogFilter
		want int
	}{{reqlog.LogFilter{Limit: 2}, 8}, {reqlog.LogFilter{Limit: 2, Status: "4xx"}, 5}, {reqlog.LogFilter{Limit: 2, Status: "503"}, 0}, {reqlog.LogFilter{Limit: 2, Path: "/api/v2/payments/*"}, 5}} {
		page, total, err := e.sb.RequestLogCount(ctx, c.f)
		if err != nil {
			t.Fatal(err)
		}
		if total != c.want || len(page) != min(2, c.want) {
			t.Errorf("%+v: %d entries of %d, want %d of %d", c.f, len(page), total, min(2, c.want), c.want)
		}
	}
	// Every 4xx, two at a time, newest first, none twice.
	var seen []int64
	f := reqlog.LogFilter{Limit: 2, Status: "4xx"}
	for {
		page, err := e.sb.RequestLog(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, en := range page {
			if len(seen) > 0 && en.Seq >= seen[len(seen)-1] {
				t.Fatalf("not newest first: %d after %v", en.Seq, seen)
			}
			seen = append(seen, en.Seq)
		}
		if len(page) < 2 {
			break
		}
		f.Before = page[len(page)-1].Seq
	}
	if len(seen) != 5 {
		t.Errorf("paged through %d of 5 entries: %v", len(seen), seen)
	}
}
