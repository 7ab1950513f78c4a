package bulk

// lineTable maps 64-bit hashes to 32-bit values (a line, a count) in two
// flat slices, open addressing with linear probing: 12 bytes a slot, at
// most 3/4 full, and nothing for the garbage collector to scan. It is
// what a large input's per-row memory comes to (a Go map takes about
// three times as much per entry).
type lineTable struct {
	keys []uint64 // 0 is an empty slot; a key of 0 is stored as 1
	vals []uint32
	n    int
}

func (t *lineTable) slot(key uint64) (int, uint64) {
	if key == 0 {
		key = 1
	}
	mask := len(t.keys) - 1
	i := int(key*0x9e3779b97f4a7c15>>32) & mask
	for t.keys[i] != 0 && t.keys[i] != key {
		i = (i + 1) & mask
	}
	return i, key
}

// get is the value of key, and whether it is there.
func (t *lineTable) get(key uint64) (uint32, bool) {
	if t.n == 0 {
		return 0, false
	}
	i, k := t.slot(key)
	return t.vals[i], t.keys[i] == k
}

// put sets the value of key.
func (t *lineTable) put(key uint64, val uint32) {
	if (t.n+1)*4 > len(t.keys)*3 {
		t.grow()
	}
	i, k := t.slot(key)
	if t.keys[i] == 0 {
		t.n++
	}
	t.keys[i], t.vals[i] = k, val
}

func (t *lineTable) grow() {
	keys, vals := t.keys, t.vals
	size := max(2*len(keys), 1024)
	t.keys, t.vals, t.n = make([]uint64, size), make([]uint32, size), 0
	for i, k := range keys {
		if k != 0 {
			t.put(k, vals[i])
		}
	}
}
