package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

func benchEnv(b *testing.B, file bool) *env {
	opts := Options{}
	if file {
		opts.StatePath = filepath.Join(b.TempDir(), "bench.db")
	}
	return newEnv(b, opts)
}

// cpuPerOp reports, when the benchmark ends, the CPU time the whole
// process spent per operation (user and system, every goroutine: the
// handlers, the state's writer, the request log's writer, the garbage
// collector) as cpu-µs/op. Requests a second on a saturated machine are
// its cores divided by this figure, and unlike ns/op it hardly moves with
// what else the machine runs. The request log is flushed first, so that
// what it still had to store is counted.
func cpuPerOp(b *testing.B, e *env) func() {
	start, ok := processCPU(b)
	return func() {
		if !ok {
			return
		}
		if e.sb.Log != nil {
			e.sb.Log.Flush(context.Background())
		}
		end, _ := processCPU(b)
		b.ReportMetric(float64((end-start).Microseconds())/float64(b.N), "cpu-µs/op")
	}
}

// benchRequest sends h one request with the merchant's test key (a body
// as JSON) and fails the benchmark unless it is answered one of ok.
func benchRequest(b *testing.B, h http.Handler, method, path, body string, ok ...int) {
	var r io.Reader
	if body != "" {
		r = stringsReader(body)
	}
	req := httptest.NewRequest(method, path, r)
	req.Header.Set("Authorization", "Bearer "+aeTest)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if !slices.Contains(ok, w.Code) {
		b.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
	}
}

func BenchmarkGetPayment(b *testing.B) {
	for _, mode := range []string{"memory", "file"} {
		b.Run(mode, func(b *testing.B) {
			e := benchEnv(b, mode == "file")
			id := e.authorized("100.00")
			h := e.sb.Handler("ae")
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					benchRequest(b, h, "GET", "/api/v2/payments/"+id, "", 200)
				}
			})
		})
	}
}

func BenchmarkCapture(b *testing.B) {
	for _, mode := range []string{"memory", "file"} {
		b.Run(mode, func(b *testing.B) {
			e := benchEnv(b, mode == "file")
			h := e.sb.Handler("ae")
			// Ten captures of 1.00 close a payment; a fresh one is made
			// (off the clock) every ten, so documents stay of a usual size.
			var id string
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i%10 == 0 {
					b.StopTimer()
					id = e.authorized("10.00")
					b.StartTimer()
				}
				body := fmt.Sprintf(`{"amount": "1.00", "reference_id": "b%d"}`, i)
				benchRequest(b, h, "POST", "/api/v2/payments/"+id+"/captures", body, 200)
			}
		})
	}
}

// BenchmarkServeGetPayment reads one payment through Serve over 32
// keep-alive loopback connections, with the state in a file as `bnpl
// sandbox serve --state` keeps it.
func BenchmarkServeGetPayment(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ae, sa := freeAddr(b), freeAddr(b)
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, ServeOptions{AEAddr: ae, SAAddr: sa, Options: Options{StatePath: filepath.Join(b.TempDir(), "s.db")}}, io.Discard)
	}()
	defer func() { cancel(); <-done }()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32, MaxConnsPerHost: 32}}
	base := "http://" + ae
	var id string
	for range 100 {
		req, _ := http.NewRequest("POST", base+"/api/v2/checkout", stringsReader(mustJSON(b, checkoutBody("ae-sandbox", "AED", "10"))))
		req.Header.Set("Authorization", "Bearer "+aeTest)
		res, err := client.Do(req)
		if err != nil {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		var s struct {
			Payment struct{ ID string } `json:"payment"`
		}
		decodeJSON(b, res, &s)
		id = s.Payment.ID
		break
	}
	if id == "" {
		b.Fatal("sandbox did not come up")
	}
	var failures atomic.Int64
	b.SetParallelism(max(1, 32/runtime.GOMAXPROCS(0)))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest("GET", base+"/api/v2/payments/"+id, nil)
			req.Header.Set("Authorization", "Bearer "+aeTest)
			res, err := client.Do(req)
			if err != nil {
				failures.Add(1)
				continue
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != 200 {
				failures.Add(1)
			}
		}
	})
	b.StopTimer()
	if n := failures.Load(); n > 0 {
		b.Fatalf("%d failed reads", n)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "reads/s")
}

// BenchmarkCaptureParallel captures 0.01 on many payments at once, 32
// requests in flight, with the state in a file and the request log on, as
// `bench/ratios.sh` loads a served sandbox; each request moves a payment
// no other request in flight holds.
func BenchmarkCaptureParallel(b *testing.B) { moveAt32(b, "captures", false) }

// BenchmarkRefundParallel refunds 0.01 of many captured payments at
// once, as BenchmarkCaptureParallel captures.
func BenchmarkRefundParallel(b *testing.B) { moveAt32(b, "refunds", true) }

// moveAt32 moves 0.01 (a capture or a refund: move is the path's last
// element) of many payments of 5000.00 at once, 32 requests in flight,
// each payment captured whole first when captured is true.
func moveAt32(b *testing.B, move string, captured bool) {
	e := benchEnv(b, true)
	h := e.sb.Handler("ae")
	ids := make([]string, max(64, b.N/90+1)) // a payment keeps 100 of each
	for i := range ids {
		ids[i] = e.authorized("5000.00")
		if captured {
			benchRequest(b, h, "POST", "/api/v2/payments/"+ids[i]+"/captures", `{"amount": "5000.00"}`, 200)
		}
	}
	var next atomic.Int64
	writeAt32(b, e, func() {
		n := next.Add(1)
		body := fmt.Sprintf(`{"amount": "0.01", "reference_id": "p%d"}`, n)
		benchRequest(b, h, "POST", "/api/v2/payments/"+ids[n%int64(len(ids))]+"/"+move, body, 200, 409)
	})
}

// BenchmarkCheckoutParallel creates checkouts, 32 requests in flight, with
// the state in a file and the request log on, as `bench/ratios.sh` does.
func BenchmarkCheckoutParallel(b *testing.B) {
	e := benchEnv(b, true)
	h := e.sb.Handler("ae")
	body, err := json.Marshal(checkoutBody("ae-sandbox", "AED", "100.00"))
	if err != nil {
		b.Fatal(err)
	}
	writeAt32(b, e, func() { benchRequest(b, h, "POST", "/api/v2/checkout", string(body), 200) })
}

// writeAt32 runs write b.N times, 32 at once, and reports the CPU time a
// write took (cpuPerOp).
func writeAt32(b *testing.B, e *env, write func()) {
	b.SetParallelism(max(1, 32/runtime.GOMAXPROCS(0)))
	b.ReportAllocs()
	b.ResetTimer()
	defer cpuPerOp(b, e)()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			write()
		}
	})
}
