package bulk

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Concurrent appends share fsyncs, yet every record a returned append
// wrote is in the journal when it is opened again.
func TestJournalGroupCommitKeepsEveryRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.journal")
	j, _, err := openJournal(path, OpCapture, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 16, 40
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				key := fmt.Sprintf("k-%d-%d", w, i)
				if err := j.append(journalRecord{Event: eventSend, Key: key, ReferenceID: key}); err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	// openJournal wrote the run's own record first.
	if j.synced != j.written || j.written != workers*each+1 {
		t.Fatalf("written %d, synced %d, want %d both", j.written, j.synced, workers*each+1)
	}
	if err := j.close(); err != nil {
		t.Fatal(err)
	}
	_, entries, err := openJournal(path, OpCapture, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries.entries) != workers*each {
		t.Fatalf("reopened journal has %d entries, want %d", len(entries.entries), workers*each)
	}
}
