package bulk

import "testing"

// TestSchedulerForgetsAPaymentAfterItsLastRow: a run holds the payments it
// is working on, not every payment of its input.
func TestSchedulerForgetsAPaymentAfterItsLastRow(t *testing.T) {
	s := newScheduler(10)
	left := map[string]int{"a": 2, "b": 1}
	mk := func(id string) func() *paymentQueue {
		return func() *paymentQueue { return &paymentQueue{paymentID: id, left: left[id]} }
	}
	s.push("a", &task{}, mk("a"))
	s.push("b", &task{}, mk("b"))
	q, tasks := s.take()
	if q.paymentID != "a" || len(tasks) != 1 {
		t.Fatalf("took %s with %d rows, want a with 1", q.paymentID, len(tasks))
	}
	// a's second row arrives while its first runs.
	s.push("a", &task{}, mk("a"))
	s.done(q, 1)
	if _, held := s.queues["a"]; !held {
		t.Fatal("a was forgotten with a row still waiting")
	}
	qb, _ := s.take()
	s.done(qb, 1)
	if _, held := s.queues["b"]; held {
		t.Fatal("b is still held after its only row ran")
	}
	qa, tasks := s.take()
	if qa != q || len(tasks) != 1 {
		t.Fatalf("a's second row ran on another queue or not at all")
	}
	s.done(qa, 1)
	if len(s.queues) != 0 {
		t.Fatalf("%d queues held after every row ran", len(s.queues))
	}
	// A row the count did not know (the input changed) gets a new queue.
	s.push("a", &task{}, mk("a"))
	if got := s.queues["a"]; got == nil || got == q {
		t.Fatal("a row after the last one did not get a queue of its own")
	}
}
