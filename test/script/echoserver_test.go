package script

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// echoServer is the program `echoserver ADDR` of the scripts: a careless
// service (or a proxy in front of one) that quotes the credentials and the
// body of every request back in its error answers, with a terminal escape
// sequence for good measure. GET /ready answers 200 for waitfor.
//
// `echoserver ADDR ok` answers 200 instead, with what the service would
// answer (a payment, a page of payments, a webhook) whose strings quote
// the same credentials and body.
func echoServer() {
	if len(os.Args) != 2 && (len(os.Args) != 3 || os.Args[2] != "ok") {
		fmt.Fprintln(os.Stderr, "usage: echoserver ADDR [ok]")
		os.Exit(2)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/ready", func(w http.ResponseWriter, r *http.Request) {})
	if len(os.Args) == 3 {
		mux.HandleFunc("/", echoOK)
	} else {
		mux.HandleFunc("/", echoRefusal)
	}
	srv := &http.Server{Addr: os.Args[1], Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// echoOK answers 200 echoing the request in the strings of a plausible
// answer of the path.
func echoOK(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	auth := r.Header.Get("Authorization")
	said := fmt.Sprintf("Authorization %q, X-Hook %q, body %s", auth, r.Header.Get("X-Hook"), body)
	payment := map[string]any{
		"id": "3f0c8a4e-5d2b-4c1a-9e7f-2b6d8c0a1e3f", "amount": "10.00", "currency": "AED",
		"status": "AUTHORIZED", "is_test": true, "description": said,
		"created_at": "2026-11-20T10:00:00Z", "captures": []any{}, "refunds": []any{},
		"meta": map[string]any{"echo": said, "authorization": auth},
	}
	var answer any = payment
	switch {
	case r.URL.Path == "/api/v2/payments":
		answer = map[string]any{"payments": []any{payment}, "pagination": map[string]any{"limit": 20, "offset": 0, "total_count": 1}}
	case strings.HasPrefix(r.URL.Path, "/api/v1/webhooks"):
		var req struct {
			Header map[string]string `json:"header"`
		}
		_ = json.Unmarshal(body, &req)
		answer = map[string]any{
			"id": "5b7e2c1a-0d3f-4e8a-9c6b-1a2b3c4d5e6f", "url": "https://shop.example.com/hooks?echo=" + auth,
			"is_test": true, "header": req.Header, "echo": said,
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Echo-Authorization", auth)
	if r.URL.Query().Get("escaped") == "" {
		_ = json.NewEncoder(w).Encode(answer)
		return
	}
	// ?escaped=1: the key spelt with a \u escape for every character, as
	// an encoder that escapes everything would write it.
	b, _ := json.Marshal(answer)
	key := strings.TrimPrefix(auth, "Bearer ")
	var esc strings.Builder
	for _, c := range key {
		fmt.Fprintf(&esc, `\u%04x`, c)
	}
	if key != "" {
		b = []byte(strings.ReplaceAll(string(b), key, esc.String()))
	}
	_, _ = w.Write(b)
}

// echoRefusal answers 400 quoting the request in the service's error form.
func echoRefusal(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	auth := r.Header.Get("Authorization")
	said := fmt.Sprintf("\x1b]0;owned\x07\x1b[2Jrefused: Authorization %q, X-Hook %q, body %s", auth, r.Header.Get("X-Hook"), body)
	answer := map[string]any{
		"status":    "error",
		"errorType": "bad_data",
		"error":     said,
		"errors": []map[string]string{{
			"field": auth, "code": "echo", "message": string(body),
		}},
		"echo": map[string]any{"authorization": auth, "body": string(body)},
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Echo-Authorization", auth)
	w.Header().Set("Date", time.Now().UTC().Format(http.TimeFormat))
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(answer)
}
