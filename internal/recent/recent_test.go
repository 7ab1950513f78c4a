package recent

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func env(dir string) func(string) string {
	return func(k string) string {
		if k == "XDG_CACHE_HOME" {
			return dir
		}
		return ""
	}
}

func TestAddKeepsNewestFirstAndCaps(t *testing.T) {
	getenv := env(t.TempDir())
	for i := 0; i < Max+20; i++ {
		if err := Add(getenv, Entry{ID: fmt.Sprintf("id-%03d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	got := Load(getenv)
	if len(got) != Max {
		t.Fatalf("kept %d, want %d", len(got), Max)
	}
	if got[0].ID != fmt.Sprintf("id-%03d", Max+19) {
		t.Errorf("newest is %s", got[0].ID)
	}
	// Seeing an old id again moves it to the front with its new note.
	if err := Add(getenv, Entry{ID: got[50].ID, Note: "CLOSED"}); err != nil {
		t.Fatal(err)
	}
	again := Load(getenv)
	if again[0].ID != got[50].ID || again[0].Note != "CLOSED" || len(again) != Max {
		t.Errorf("after re-seeing: first %+v, len %d", again[0], len(again))
	}
}

func TestFileIsPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("mode bits")
	}
	dir := t.TempDir()
	if err := Add(env(dir), Entry{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(dir, "bnpl", "recent.json"))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode %04o", info.Mode().Perm())
	}
}

func TestPathFallsBackToHome(t *testing.T) {
	got := Path(func(k string) string {
		if k == "HOME" {
			return "/home/u"
		}
		return "relative/ignored"
	})
	if got != filepath.Join("/home/u", ".cache", "bnpl", "recent.json") {
		t.Errorf("path %q", got)
	}
	if Path(func(string) string { return "" }) != "" {
		t.Error("no home: want no path")
	}
}

// A move offers first the payments it can act on (a refund: CLOSED), and
// after "order:" the order numbers of the remembered payments.
func TestCompleteMoveOffersWhatItActsOnFirst(t *testing.T) {
	getenv := env(t.TempDir())
	_ = Add(getenv,
		Entry{ID: "11111111-0000", Status: "CLOSED", Order: "ORD-1", Note: "CLOSED 10.00 AED"},
		Entry{ID: "22222222-0000", Status: "CREATED", Order: "ORD-2", Note: "CREATED 20.00 AED"},
		Entry{ID: "33333333-0000", Status: "AUTHORIZED", Order: "KW-3", Note: "AUTHORIZED 5.000 KWD"})
	refund := CompleteMovePaymentIDs(getenv, "CLOSED")
	got, _ := refund(nil, nil, "")
	if len(got) != 3 || got[0] != "11111111-0000\tclosed 10.00 AED" {
		t.Errorf("refund: got %q", got)
	}
	got, _ = refund(nil, nil, "order:ORD")
	if len(got) != 2 || got[0] != "order:ORD-1\tclosed 10.00 AED" || got[1] != "order:ORD-2\tcreated 20.00 AED" {
		t.Errorf("order: got %q", got)
	}
	capture := CompleteMovePaymentIDs(getenv, "AUTHORIZED")
	if got, _ := capture(nil, nil, ""); len(got) != 3 || !strings.HasPrefix(got[0], "33333333-0000\t") {
		t.Errorf("capture: got %q", got)
	}
}

func TestCompleteOffersIDsForTheFirstArgument(t *testing.T) {
	getenv := env(t.TempDir())
	_ = Add(getenv, Entry{ID: "3fa85f64-0000", Note: "AUTHORIZED 10.00 AED"}, Entry{ID: "7bb00000-1111"})
	complete := CompletePaymentIDs(getenv)
	got, _ := complete(nil, nil, "3f")
	if len(got) != 1 || got[0] != "3fa85f64-0000\tauthorized 10.00 AED" {
		t.Errorf("got %q", got)
	}
	if got, _ := complete(nil, []string{"x"}, ""); len(got) != 0 {
		t.Errorf("second argument: got %q", got)
	}
	// A corrupt file offers nothing and breaks nothing.
	_ = os.WriteFile(Path(getenv), []byte("{not json"), 0o600)
	if got, _ := complete(nil, nil, ""); len(got) != 0 {
		t.Errorf("corrupt: got %q", got)
	}
	if err := Add(getenv, Entry{ID: "new"}); err != nil || len(Load(getenv)) != 1 {
		t.Errorf("after corrupt: err %v, %v", err, Load(getenv))
	}
}
