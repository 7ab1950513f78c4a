package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// echoServer is the program `echoserver ADDR` of the scripts: a careless
// service (or a proxy in front of one) that quotes the credentials and the
// body of every request back in its error answers, with a terminal escape
// sequence for good measure. GET /ready answers 200 for waitfor.
func echoServer() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: echoserver ADDR")
		os.Exit(2)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/ready", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
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
	})
	srv := &http.Server{Addr: os.Args[1], Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
