// Package recent remembers the payment (and checkout session) ids a person has lately seen in
// bnpl's output, so that shells can offer them when a command wants one:
// `bnpl payments capture <TAB>`. It is a convenience and nothing more:
// every read and write is best effort, and a failure is never reported,
// since a command must not fail because a cache could not be written.
//
// The ids live in $XDG_CACHE_HOME/bnpl/recent.json (else
// ~/.cache/bnpl/recent.json), mode 0600: ids are not secrets, but they
// are a merchant's business and nobody else's. At most Max are kept,
// newest first.
package recent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// Max is how many ids are kept.
const Max = 100

// Entry is one remembered payment.
type Entry struct {
	ID string `json:"id"`
	// Note is shown beside the id by shells that show descriptions
	// ("AUTHORIZED 100.00 AED"), so that a person can tell ids apart.
	Note   string    `json:"note,omitempty"`
	SeenAt time.Time `json:"seen_at"`
	// Kind is KindSession for a checkout session's id; "" is a payment's.
	Kind string `json:"kind,omitempty"`
	// Order is a payment's order number, completed as order:REF.
	Order string `json:"order,omitempty"`
	// Status is a payment's status as the service says it (CLOSED), for
	// a move to offer first the payments it can act on.
	Status string `json:"status,omitempty"`
}

// KindSession marks the entry of a checkout session.
const KindSession = "session"

type file struct {
	Payments []Entry `json:"payments"`
}

// Path is the file the ids are kept in, or "" when neither
// XDG_CACHE_HOME nor HOME is an absolute directory.
func Path(getenv func(string) string) string {
	if dir := getenv("XDG_CACHE_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "bnpl", "recent.json")
	}
	if home := getenv("HOME"); filepath.IsAbs(home) {
		return filepath.Join(home, ".cache", "bnpl", "recent.json")
	}
	return ""
}

// Load returns the remembered payments, newest first; nil when there are
// none or the file cannot be read.
func Load(getenv func(string) string) []Entry {
	path := Path(getenv)
	if path == "" {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var f file
	if json.Unmarshal(b, &f) != nil {
		return nil
	}
	return f.Payments
}

// Add remembers entries, the first of them as the newest. An id seen again
// moves to the front with its new note. It returns the error for tests;
// commands ignore it.
func Add(getenv func(string) string, entries ...Entry) error {
	path := Path(getenv)
	if path == "" || len(entries) == 0 {
		return nil
	}
	now := time.Now().UTC().Truncate(time.Second)
	merged := make([]Entry, 0, Max)
	seen := map[string]bool{}
	keep := func(e Entry) {
		if e.ID == "" || seen[e.ID] || len(merged) >= Max {
			return
		}
		seen[e.ID] = true
		merged = append(merged, e)
	}
	for _, e := range entries {
		if e.SeenAt.IsZero() {
			e.SeenAt = now
		}
		keep(e)
	}
	old := Load(getenv)
	for _, e := range old {
		keep(e)
	}
	if sameOrder(merged, old) {
		// Reading the same payments again changes nothing worth a write,
		// and a write costs more than the rest of a quick command.
		return nil
	}
	b, err := json.MarshalIndent(file{Payments: merged}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	// Written aside and renamed, so that two commands finishing at once
	// leave one whole file rather than an interleaving of both.
	tmp, err := os.CreateTemp(filepath.Dir(path), ".recent-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// sameOrder is true when a and b hold the same ids with the same notes in
// the same order.
func sameOrder(a, b []Entry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Note != b[i].Note || a[i].Kind != b[i].Kind {
			return false
		}
	}
	return true
}

// Recorder returns a function that remembers entries and ignores any
// failure, for commands to call after they printed payments.
func Recorder(getenv func(string) string) func(...Entry) {
	return func(entries ...Entry) { _ = Add(getenv, entries...) }
}

// CompletePaymentIDs is a cobra ValidArgsFunction offering the remembered
// payment ids for a command's first argument, each with its note as the
// description. Use it on every command that takes a payment id:
//
//	ValidArgsFunction: recent.CompletePaymentIDs(f.Getenv),
func CompletePaymentIDs(getenv func(string) string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return completeKind(getenv, "")
}

// CompleteSessionIDs offers the remembered checkout session ids, as
// CompletePaymentIDs does payment ids.
func CompleteSessionIDs(getenv func(string) string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return completeKind(getenv, KindSession)
}

// CompleteMovePaymentIDs offers the remembered payment ids for a move:
// those in one of the statuses it acts on (a refund: CLOSED) first, then
// the others, newest first within each; after "order:", the order numbers
// of the remembered payments.
func CompleteMovePaymentIDs(getenv func(string) string, statuses ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return completeFirst(getenv, "", statuses)
}

func completeKind(getenv func(string) string, kind string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return completeFirst(getenv, kind, nil)
}

// lowerStatus writes the status a note starts with ("CLOSED 250.00 AED")
// in lower case, as tables have it.
func lowerStatus(note string) string {
	word, rest, _ := strings.Cut(note, " ")
	if word == "" || strings.ToUpper(word) != word || strings.ContainsAny(word, "0123456789") {
		return note
	}
	return strings.TrimSpace(strings.ToLower(word) + " " + rest)
}

// completeFirst completes the remembered ids of kind, the entries in one
// of first's statuses before the others. The note beside each is in the
// case tables use (closed 250.00 AED).
func completeFirst(getenv func(string) string, kind string, first []string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var acts, others []string
		for _, e := range Load(getenv) {
			if e.Kind != kind {
				continue
			}
			value, ok := e.ID, strings.HasPrefix(e.ID, strings.ToLower(toComplete))
			if ref, isOrder := strings.CutPrefix(toComplete, "order:"); isOrder && kind == "" {
				value, ok = "order:"+e.Order, e.Order != "" && strings.HasPrefix(e.Order, ref)
			}
			if !ok {
				continue
			}
			if e.Note != "" {
				value += "\t" + lowerStatus(e.Note)
			}
			if len(first) > 0 && slices.Contains(first, e.Status) {
				acts = append(acts, value)
			} else {
				others = append(others, value)
			}
		}
		// Newest first is the useful order; shells that sort anyway still get
		// the right set.
		return append(acts, others...), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
	}
}
