// Command bare is the floor of bench/ratios.sh's sandbox read: a plain
// net/http server that answers every request with the same bytes (a
// payment's JSON, read once from a file) and the same headers as the
// sandbox's GET /api/v2/payments/{id}, so that what the sandbox costs
// beyond HTTP itself shows as a ratio.
//
// Usage: bare -addr 127.0.0.1:PORT -body FILE
package main

import (
	"flag"
	"log"
	"net/http"
	"os"
	"strconv"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	bodyFile := flag.String("body", "", "file whose bytes every answer carries")
	flag.Parse()
	body, err := os.ReadFile(*bodyFile)
	if err != nil {
		log.Fatal(err)
	}
	length := strconv.Itoa(len(body))
	srv := &http.Server{
		Addr:              *addr,
		ReadHeaderTimeout: 10 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			h := w.Header()
			h.Set("Content-Type", "application/json; charset=utf-8")
			h.Set("Content-Length", length)
			w.Write(body)
		}),
	}
	log.Fatal(srv.ListenAndServe())
}
