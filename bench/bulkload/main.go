// Command bulkload serves bench/bulk.sh: it seeds a running sandbox with
// authorized payments and a file of captures over them, and it measures how
// fast the sandbox itself can make those captures.
//
//	go run ./bench/bulkload seed -url http://127.0.0.1:8700 -n 250 -out captures.csv
//	go run ./bench/bulkload capture -url http://127.0.0.1:8700 -file captures.csv -c 8
//
// seed goes over HTTP, as a shop would (checkout, then the customer's
// approval on /_sandbox), and writes 4 captures per payment adding up to its
// amount. capture sends a file's rows the way a bulk run does, each payment's
// rows one after the other and c payments at once, with nothing but a
// keep-alive HTTP client around them: the ceiling a bulk client can reach.
package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: bulkload seed|capture [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "seed":
		err = seed(os.Args[2:])
	case "capture":
		err = capture(os.Args[2:])
	default:
		err = fmt.Errorf("unknown mode %q: want seed or capture", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bulkload:", err)
		os.Exit(1)
	}
}

func client(conns int) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = conns
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

func send(hc *http.Client, method, url, key string, body []byte) ([]byte, error) {
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s %s: %d %s", method, url, res.StatusCode, b)
	}
	return b, nil
}

func seed(args []string) error {
	fs := flag.NewFlagSet("seed", flag.ExitOnError)
	base := fs.String("url", "http://127.0.0.1:8700", "base URL of the sandbox's ae region")
	n := fs.Int("n", 250, "how many authorized payments to make")
	out := fs.String("out", "", "CSV of 4 captures per payment to write")
	prefix := fs.String("prefix", "B", "reference_id prefix, to keep files apart")
	key := fs.String("key", "sk_test_ae_sandbox", "merchant test key")
	merchant := fs.String("merchant", "ae-sandbox", "merchant code")
	_ = fs.Parse(args)
	if *out == "" {
		return fmt.Errorf("-out is required")
	}
	hc := client(8)
	ids := make([]string, *n)
	jobs := make(chan int)
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range jobs {
				body := checkoutBody(*merchant, i)
				b, err := send(hc, "POST", *base+"/api/v2/checkout", *key, body)
				if err != nil {
					errs <- err
					return
				}
				var s struct {
					Payment struct {
						ID string `json:"id"`
					} `json:"payment"`
				}
				if err := json.Unmarshal(b, &s); err != nil {
					errs <- err
					return
				}
				if _, err := send(hc, "POST", *base+"/_sandbox/payments/"+s.Payment.ID+"/approve", "", nil); err != nil {
					errs <- err
					return
				}
				ids[i] = s.Payment.ID
			}
		})
	}
	for i := range *n {
		select {
		case jobs <- i:
		case err := <-errs:
			close(jobs)
			return err
		}
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
	}

	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.Write([]string{"payment_id", "amount", "reference_id"})
	// Rounds of one capture per payment, as an export of shipments would
	// list them; the four add up to the payment's 100.00.
	for j, amount := range []string{"10.00", "20.00", "30.00", "40.00"} {
		for i, id := range ids {
			_ = w.Write([]string{id, amount, fmt.Sprintf("%s-%d-%d", *prefix, i, j)})
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func checkoutBody(merchant string, i int) []byte {
	b, _ := json.Marshal(map[string]any{
		"lang":          "en",
		"merchant_code": merchant,
		"merchant_urls": map[string]string{"success": "https://shop.example/ok", "cancel": "https://shop.example/cancel", "failure": "https://shop.example/fail"},
		"payment": map[string]any{
			"amount":           "100.00",
			"currency":         "AED",
			"buyer":            map[string]string{"name": "Bench Buyer", "email": "otp.success@tabby.ai", "phone": "+971500000001", "dob": "1990-01-02"},
			"shipping_address": map[string]string{"city": "Dubai", "address": "Tower 1", "zip": "00000"},
			"order": map[string]any{
				"reference_id": fmt.Sprintf("BENCH-%d", i),
				"items":        []any{map[string]any{"title": "Item", "quantity": 1, "unit_price": "100.00", "category": "Misc"}},
			},
			"buyer_history": map[string]any{"registered_since": "2020-01-01T00:00:00Z", "loyalty_level": 0},
			"order_history": []any{},
		},
	})
	return b
}

func capture(args []string) error {
	fs := flag.NewFlagSet("capture", flag.ExitOnError)
	base := fs.String("url", "http://127.0.0.1:8700", "base URL of the sandbox's ae region")
	file := fs.String("file", "", "CSV of payment_id,amount,reference_id")
	conns := fs.Int("c", 8, "payments worked on at once")
	key := fs.String("key", "sk_test_ae_sandbox", "merchant test key")
	_ = fs.Parse(args)
	f, err := os.Open(*file)
	if err != nil {
		return err
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		return err
	}
	if len(recs) < 2 {
		return fmt.Errorf("%s holds no rows", *file)
	}
	// Grouped by payment in input order, the way a bulk run must send
	// them: the service locks a payment for each request.
	var order []string
	groups := map[string][][]string{}
	for _, r := range recs[1:] {
		if _, ok := groups[r[0]]; !ok {
			order = append(order, r[0])
		}
		groups[r[0]] = append(groups[r[0]], r)
	}
	hc := client(*conns)
	jobs := make(chan string)
	var mu sync.Mutex
	var lat []time.Duration
	var firstErr error
	var wg sync.WaitGroup
	start := time.Now()
	for range *conns {
		wg.Go(func() {
			for id := range jobs {
				for _, r := range groups[id] {
					body, _ := json.Marshal(map[string]string{"amount": r[1], "reference_id": r[2]})
					t0 := time.Now()
					_, err := send(hc, "POST", *base+"/api/v2/payments/"+id+"/captures", *key, body)
					d := time.Since(t0)
					mu.Lock()
					lat = append(lat, d)
					if err != nil && firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		})
	}
	for _, id := range order {
		jobs <- id
	}
	close(jobs)
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		return firstErr
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(float64(len(lat))*p))] }
	fmt.Printf("captures=%d conns=%d elapsed=%.3fs rate=%.0f/s p50=%s p99=%s\n",
		len(lat), *conns, elapsed.Seconds(), float64(len(lat))/elapsed.Seconds(),
		pct(0.50).Round(time.Microsecond), pct(0.99).Round(time.Microsecond))
	return nil
}
