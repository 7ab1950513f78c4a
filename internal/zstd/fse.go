package zstd

import "math/bits"

// fseEntry is one state of an FSE decoding table: the symbol it gives,
// and how the next state is found (base plus so many bits read).
type fseEntry struct {
	sym  uint8
	bits uint8
	base uint16
}

// fseTable is an FSE decoding table of 1<<log states.
type fseTable struct {
	log uint
	e   []fseEntry
}

// readDist reads an FSE table description (RFC 8878, 4.1.1) from the
// start of b into norm: the normalised count of each symbol, -1 for the
// "less than one" probability. It returns the number of symbols, the
// accuracy log and the bytes the description took.
func readDist(b []byte, maxSym int, maxLog uint, norm []int16) (nsym int, log uint, used int, err error) {
	br := fwdBits{b: b}
	log = uint(br.read(4)) + 5
	if log > maxLog {
		return 0, 0, 0, corrupt("an FSE table's accuracy log is too large")
	}
	remaining := int32(1<<log) + 1
	threshold := int32(1 << log)
	nb := log + 1
	for remaining > 1 {
		if nsym > maxSym {
			return 0, 0, 0, corrupt("an FSE table has too many symbols")
		}
		max := 2*threshold - 1 - remaining
		v := int32(br.peek(nb - 1))
		if v < max {
			br.skip(nb - 1)
		} else {
			v = int32(br.read(nb))
			if v >= threshold {
				v -= max
			}
		}
		count := v - 1
		if count < 0 {
			remaining += count
		} else {
			remaining -= count
		}
		norm[nsym] = int16(count)
		nsym++
		if count == 0 {
			if nsym, err = zeroRun(&br, nsym, maxSym, norm); err != nil {
				return 0, 0, 0, err
			}
		}
		for remaining < threshold && threshold > 1 {
			nb--
			threshold >>= 1
		}
	}
	if remaining != 1 || br.past() {
		return 0, 0, 0, corrupt("an FSE table's counts do not add up")
	}
	return nsym, log, (br.pos + 7) / 8, nil
}

// zeroRun reads the repeat flags that follow a zero count: each gives up
// to three more symbols of count zero, 3 meaning another flag follows.
func zeroRun(br *fwdBits, nsym, maxSym int, norm []int16) (int, error) {
	for {
		rep := int(br.read(2))
		if nsym+rep > maxSym+1 || br.past() {
			return 0, corrupt("an FSE table's zero run is too long")
		}
		for i := 0; i < rep; i++ {
			norm[nsym] = 0
			nsym++
		}
		if rep != 3 {
			return nsym, nil
		}
	}
}

// build makes the decoding table of a distribution whose counts add up
// to 1<<log (RFC 8878, 4.1.1).
func (t *fseTable) build(norm []int16, log uint) error {
	size := 1 << log
	t.log = log
	if cap(t.e) < size {
		t.e = make([]fseEntry, size)
	}
	t.e = t.e[:size]
	var next [256]uint16
	high := size - 1
	for s, c := range norm {
		if c == -1 {
			t.e[high].sym = uint8(s)
			high--
			next[s] = 1
		} else {
			next[s] = uint16(c)
		}
	}
	pos, step, mask := 0, size>>1+size>>3+3, size-1
	for s, c := range norm {
		for i := 0; i < int(c); i++ {
			t.e[pos].sym = uint8(s)
			pos = (pos + step) & mask
			for pos > high {
				pos = (pos + step) & mask
			}
		}
	}
	if pos != 0 {
		return corrupt("an FSE table's counts do not fill it")
	}
	for u := range t.e {
		s := t.e[u].sym
		ns := next[s]
		next[s]++
		nb := log - uint(bits.Len16(ns)-1)
		t.e[u].bits = uint8(nb)
		t.e[u].base = uint16(uint(ns)<<nb - uint(size))
	}
	return nil
}

// rle makes the table of a single symbol, read with no bits.
func (t *fseTable) rle(sym uint8) {
	t.log = 0
	if cap(t.e) < 1 {
		t.e = make([]fseEntry, 1)
	}
	t.e = t.e[:1]
	t.e[0] = fseEntry{sym: sym}
}
