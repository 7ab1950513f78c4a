// Command bighar writes large recordings for bench/bighar.sh: a seed
// recording repeated until the file holds -mb megabytes, every id (any
// UUID) made new in each copy and the times moved past the copy before,
// so that each copy is a run of its own against the same service (its
// list of payments left out: it would show the copies before); or
// -empties N entries of {} (the smallest hostile file).
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/har"
)

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

func main() {
	seed := flag.String("seed", "", "the recording to repeat")
	mb := flag.Int("mb", 100, "the size to reach, in MB")
	empties := flag.Int("empties", 0, "write this many {} entries instead")
	out := flag.String("out", "big.har", "the file to write")
	flag.Parse()
	f, err := os.OpenFile(*out, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		fail(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if *empties > 0 {
		writeEmpties(w, *empties)
	} else {
		writeCopies(w, *seed, int64(*mb)<<20)
	}
	if err := w.Flush(); err != nil {
		fail(err)
	}
	if err := f.Close(); err != nil {
		fail(err)
	}
}

func writeEmpties(w *bufio.Writer, n int) {
	w.WriteString(`{"log":{"version":"1.2","creator":{"name":"bighar","version":"1"},"entries":[`)
	for i := range n {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString("{}")
	}
	w.WriteString("]}}\n")
}

func writeCopies(w *bufio.Writer, seed string, size int64) {
	data, err := os.ReadFile(seed)
	if err != nil {
		fail(err)
	}
	doc, err := har.Parse(seed, data)
	if err != nil {
		fail(err)
	}
	entries := doc.Log.Entries
	if len(entries) == 0 {
		fail(fmt.Errorf("%s has no entries", seed))
	}
	first, last := entries[0].Started(), entries[0].Started()
	for _, e := range entries {
		if end := e.Started().Add(time.Duration(e.Time * float64(time.Millisecond))); end.After(last) {
			last = end
		}
	}
	span := last.Sub(first) + time.Second
	meta, _ := json.Marshal(doc.Log.Bnpl)
	creator, _ := json.Marshal(doc.Log.Creator)
	fmt.Fprintf(w, `{"log":{"version":"1.2","creator":%s,"_bnpl":%s,"entries":[`, creator, meta)
	var written int64
	n := 0
	for c := 0; written < size; c++ {
		for _, e := range entries {
			if c > 0 && isList(e) {
				continue
			}
			e.StartedDateTime = e.Started().Add(time.Duration(c) * span).UTC().Format(har.TimeLayout)
			b, err := json.Marshal(e)
			if err != nil {
				fail(err)
			}
			b = uuidRE.ReplaceAllFunc(b, func(id []byte) []byte { return newID(id, c) })
			if n > 0 {
				w.WriteByte(',')
			}
			w.Write(b)
			written += int64(len(b)) + 1
			n++
		}
	}
	w.WriteString("]}}\n")
}

// isList tells a request that lists the account's payments: a copy's
// list would show every copy's payments made before it, where the seed's
// showed its own, so copies leave it out and the file verifies clean.
func isList(e har.Entry) bool {
	u, err := url.Parse(e.Request.URL)
	return err == nil && e.Request.Method == "GET" && strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/payments")
}

// newID is the id standing for id in copy c: the same in every entry of
// the copy, another in each copy.
func newID(id []byte, c int) []byte {
	if c == 0 {
		return id
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s/%d", id, c))
	h := hex.EncodeToString(sum[:16])
	return []byte(h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:32])
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bighar:", err)
	os.Exit(1)
}
