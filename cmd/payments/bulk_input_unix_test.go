//go:build unix

package payments

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"unicode/utf16"

	"github.com/bnpl-cli/bnpl/internal/bulk"
)

// --input <(…) names a FIFO (/dev/fd/63): a file as spreadsheets save it
// (UTF-16LE, ";" separated, CR-only line ends) read through one is
// buffered, and both passes read the same rows.
func TestBulkInputFromANamedPipeAsSaved(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "63")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	text := "payment_id;amount;reference_id\r" + movedPaymentID + ";1,00;R-1\r" + movedPaymentID + ";2.00;R-2\r"
	b := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(text)) {
		b = append(b, byte(u), byte(u>>8))
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		_, _ = f.Write(b)
		f.Close()
	}()
	in, err := openBulkInput(fifo, nil, t.TempDir(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer in.close()
	if !in.buffered {
		t.Fatalf("a FIFO read where it is: %+v", in)
	}
	for pass := range 2 {
		var rows []bulk.Row
		invalid, _, err := in.scan(bulk.OpCapture, bulk.ReadOptions{}, func(r bulk.Row) { rows = append(rows, r) })
		if err != nil || len(rows) != 1 || rows[0].ReferenceID != "R-2" || rows[0].Line != 3 ||
			len(invalid) != 1 || invalid[0].Line != 2 || invalid[0].Field != "amount" {
			t.Fatalf("pass %d: rows %+v invalid %v err %v", pass, rows, invalid, err)
		}
	}
}
