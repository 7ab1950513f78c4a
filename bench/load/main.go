// Command load serves the benchmarks under bench/: it seeds a sandbox state
// file with payments, and it measures a running sandbox's read throughput.
//
//	go run ./bench/load seed -state FILE -n 10000 [-captured] [-ids FILE]
//	go run ./bench/load read -url http://127.0.0.1:8700/api/v2/payments/ID -c 32 -d 10s
//
// seed goes through the sandbox's own handler in-process, the same code
// `bnpl sandbox serve` runs, so the payments are what the service would
// have made; it skips only the sockets, which are not what list.sh
// measures. -captured captures each payment in full (for refunds), and
// -ids writes the payments' ids to a file, one a line. read keeps c connections busy for d and prints requests per
// second and latency percentiles.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: load seed|read [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "seed":
		err = seed(os.Args[2:])
	case "read":
		err = read(os.Args[2:])
	default:
		err = fmt.Errorf("unknown mode %q: want seed or read", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

func seed(args []string) error {
	fs := flag.NewFlagSet("seed", flag.ExitOnError)
	state := fs.String("state", "", "sandbox state file (SQLite) to add payments to")
	n := fs.Int("n", 1000, "how many authorized payments to add")
	key := fs.String("key", "sk_test_ae_sandbox", "merchant test key")
	merchant := fs.String("merchant", "ae-sandbox", "merchant code")
	captured := fs.Bool("captured", false, "capture each payment in full")
	idsFile := fs.String("ids", "", "file to write the payments' ids to, one a line")
	_ = fs.Parse(args)
	if *state == "" {
		return fmt.Errorf("-state is required")
	}
	sb, err := sandbox.New(sandbox.Options{StatePath: *state})
	if err != nil {
		return err
	}
	defer sb.Close()
	h := sb.Handler("ae")
	ctx := context.Background()
	start := time.Now()
	var ids []string
	for i := range *n {
		body := checkoutBody(*merchant, i)
		req := httptest.NewRequest(http.MethodPost, "/api/v2/checkout", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+*key)
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			return fmt.Errorf("checkout %d: %d %s", i, w.Code, w.Body)
		}
		var sess struct {
			Payment struct {
				ID string `json:"id"`
			} `json:"payment"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &sess); err != nil {
			return err
		}
		if _, err := sb.Approve(ctx, sess.Payment.ID); err != nil {
			return fmt.Errorf("approve %d: %w", i, err)
		}
		if *captured {
			if err := captureAll(h, *key, sess.Payment.ID); err != nil {
				return fmt.Errorf("capture %d: %w", i, err)
			}
		}
		ids = append(ids, sess.Payment.ID)
	}
	if *idsFile != "" {
		if err := os.WriteFile(*idsFile, []byte(strings.Join(ids, "\n")+"\n"), 0o600); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "seeded %d payments in %s\n", *n, time.Since(start).Round(time.Millisecond))
	return nil
}

// captureAll captures the whole of a seeded payment's 100.00.
func captureAll(h http.Handler, key, id string) error {
	req := httptest.NewRequest(http.MethodPost, "/api/v2/payments/"+id+"/captures", strings.NewReader(`{"amount": "100.00"}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		return fmt.Errorf("%d %s", w.Code, w.Body)
	}
	return nil
}

func checkoutBody(merchant string, i int) []byte {
	b, _ := json.Marshal(map[string]any{
		"lang":          "en",
		"merchant_code": merchant,
		"payment": map[string]any{
			"amount":           "100.00",
			"currency":         "AED",
			"buyer":            map[string]string{"name": "Bench Buyer", "email": "otp.success@tabby.ai", "phone": "+971500000001"},
			"shipping_address": map[string]string{"city": "Dubai", "address": "Bench 1", "zip": "00000"},
			"order": map[string]any{
				"reference_id": fmt.Sprintf("BENCH-%06d", i),
				"items":        []map[string]any{{"title": "Item", "quantity": 1, "unit_price": "100.00", "category": "Bench"}},
			},
			"buyer_history": map[string]any{"registered_since": "2024-01-01T00:00:00Z", "loyalty_level": 1},
		},
	})
	return b
}

func read(args []string) error {
	fs := flag.NewFlagSet("read", flag.ExitOnError)
	target := fs.String("url", "", "URL to GET")
	key := fs.String("key", "sk_test_ae_sandbox", "secret key for the Authorization header")
	conns := fs.Int("c", 32, "concurrent connections")
	dur := fs.Duration("d", 10*time.Second, "how long to run")
	_ = fs.Parse(args)
	if *target == "" {
		return fmt.Errorf("-url is required")
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = *conns
	client := &http.Client{Transport: transport, Timeout: 10 * time.Second}

	var failures atomic.Int64
	latencies := make([][]time.Duration, *conns)
	deadline := time.Now().Add(*dur)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range *conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				req, _ := http.NewRequest(http.MethodGet, *target, nil)
				req.Header.Set("Authorization", "Bearer "+*key)
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					failures.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					failures.Add(1)
					continue
				}
				latencies[w] = append(latencies[w], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all []time.Duration
	for _, l := range latencies {
		all = append(all, l...)
	}
	if len(all) == 0 {
		return fmt.Errorf("no request succeeded (%d failures)", failures.Load())
	}
	slices.Sort(all)
	pct := func(p float64) time.Duration { return all[min(len(all)-1, int(float64(len(all))*p))] }
	fmt.Printf("connections: %d, duration: %s\n", *conns, elapsed.Round(time.Millisecond))
	fmt.Printf("requests:    %d ok, %d failed\n", len(all), failures.Load())
	fmt.Printf("throughput:  %.0f requests/s\n", float64(len(all))/elapsed.Seconds())
	fmt.Printf("latency:     p50 %s, p90 %s, p99 %s, max %s\n",
		pct(0.50).Round(time.Microsecond), pct(0.90).Round(time.Microsecond), pct(0.99).Round(time.Microsecond), all[len(all)-1].Round(time.Microsecond))
	return nil
}
