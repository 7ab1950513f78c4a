package bulk

import "testing"

func TestLineTable(t *testing.T) {
	var lt lineTable
	if _, ok := lt.get(7); ok {
		t.Fatal("empty table holds 7")
	}
	const n = 100_000
	for i := range uint64(n) {
		lt.put(i*0x10001, uint32(i)) // key 0 included
	}
	lt.put(0, 42) // overwritten, not added
	if lt.n != n {
		t.Fatalf("n = %d", lt.n)
	}
	for i := range uint64(n) {
		v, ok := lt.get(i * 0x10001)
		want := uint32(i)
		if i == 0 {
			want = 42
		}
		if !ok || v != want {
			t.Fatalf("get(%d) = %d %v", i*0x10001, v, ok)
		}
	}
	if _, ok := lt.get(3); ok {
		t.Fatal("holds a key never put")
	}
}
