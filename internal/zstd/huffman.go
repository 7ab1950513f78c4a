package zstd

import (
	"encoding/binary"
	"math/bits"
)

// hufEntry is one slot of a Huffman decoding table, indexed by the next
// maxBits bits of a stream: the symbol, and the length of its code.
type hufEntry struct {
	sym  uint8
	bits uint8
}

const hufMaxBits = 11

// readHuffman reads a Huffman tree description (RFC 8878, 4.2.1) from the
// start of b, builds the table from it and returns the bytes it took.
func (d *frameDecoder) readHuffman(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, corrupt("a Huffman tree description is missing")
	}
	var w [256]uint8
	var n, used int
	if h := int(b[0]); h < 128 {
		if 1+h > len(b) {
			return 0, corrupt("a Huffman tree description runs past its block")
		}
		var err error
		if n, err = d.fseWeights(b[1:1+h], &w); err != nil {
			return 0, err
		}
		used = 1 + h
	} else {
		n = h - 127
		used = 1 + (n+1)/2
		if used > len(b) {
			return 0, corrupt("a Huffman tree description runs past its block")
		}
		for i := 0; i < n; i++ {
			c := b[1+i/2]
			if i%2 == 0 {
				c >>= 4
			}
			w[i] = c & 15
		}
	}
	return used, d.buildHuffman(w[:n])
}

// fseWeights decodes Huffman weights compressed with FSE: two states
// take turns over one backward stream until it runs out.
func (d *frameDecoder) fseWeights(b []byte, w *[256]uint8) (int, error) {
	var norm [256]int16
	nsym, log, used, err := readDist(b, 255, 6, norm[:])
	if err != nil {
		return 0, err
	}
	t := &d.weightTable
	if err := t.build(norm[:nsym], log); err != nil {
		return 0, err
	}
	var br backBits
	if err := br.init(b[used:]); err != nil {
		return 0, err
	}
	s1, s2 := br.read(log), br.read(log)
	n := 0
	for {
		// A turn writes two weights, and a third if the stream ends.
		if n+3 > len(w) {
			return 0, corrupt("too many Huffman weights")
		}
		e := t.e[s1]
		w[n] = e.sym
		n++
		s1 = uint64(e.base) + br.read(uint(e.bits))
		if br.over > 0 {
			w[n] = t.e[s2].sym
			return n + 1, nil
		}
		e = t.e[s2]
		w[n] = e.sym
		n++
		s2 = uint64(e.base) + br.read(uint(e.bits))
		if br.over > 0 {
			w[n] = t.e[s1].sym
			return n + 1, nil
		}
	}
}

// buildHuffman makes the decoding table from the weights of all symbols
// but the last, whose weight is what completes the tree.
func (d *frameDecoder) buildHuffman(w []uint8) error {
	var count [hufMaxBits + 2]uint32
	var total uint32
	for _, x := range w {
		if x > hufMaxBits {
			return corrupt("a Huffman weight is too large")
		}
		count[x]++
		if x > 0 {
			total += 1 << (x - 1)
		}
	}
	if total == 0 || len(w) > 255 {
		return corrupt("a Huffman tree without its weights")
	}
	maxBits := uint(bits.Len32(total))
	rest := uint32(1)<<maxBits - total
	if maxBits > hufMaxBits || rest&(rest-1) != 0 {
		return corrupt("Huffman weights that make no tree")
	}
	last := uint8(bits.Len32(rest))
	count[last]++
	var start [hufMaxBits + 2]uint32
	var cur uint32
	for x := uint(1); x <= maxBits; x++ {
		start[x] = cur
		cur += count[x] << (x - 1)
	}
	size := 1 << maxBits
	if cap(d.huf) < size {
		d.huf = make([]hufEntry, size)
	}
	d.huf, d.hufBits = d.huf[:size], maxBits
	put := func(s int, x uint8) {
		e := hufEntry{sym: uint8(s), bits: uint8(maxBits + 1 - uint(x))}
		span := d.huf[start[x] : start[x]+1<<(x-1)]
		for i := range span {
			span[i] = e
		}
		start[x] += 1 << (x - 1)
	}
	for s, x := range w {
		if x > 0 {
			put(s, x)
		}
	}
	put(len(w), last)
	d.hasHuf = true
	return nil
}

// hufStream decodes len(out) literals from one backward stream, which
// must end with the last of them.
func (d *frameDecoder) hufStream(b []byte, out []byte) error {
	var br backBits
	if err := br.init(b); err != nil {
		return err
	}
	t, mb := d.huf, d.hufBits
	mask := uint64(1)<<mb - 1
	i := 0
	for ; i+4 <= len(out); i += 4 {
		// Four codes of at most 11 bits fit one load.
		if br.n < 4*mb {
			br.fill()
			if br.n < 4*mb {
				break
			}
		}
		for j := range 4 {
			e := t[(br.val>>(br.n-mb))&mask]
			out[i+j] = e.sym
			br.n -= uint(e.bits)
		}
	}
	for ; i < len(out); i++ {
		e := t[br.peek(mb)]
		out[i] = e.sym
		br.skip(uint(e.bits))
	}
	if !br.done() {
		return corrupt("a Huffman stream does not end with its literals")
	}
	return nil
}

// hufLiterals decodes regen literals from one stream, or from four after
// a six-byte jump table.
func (d *frameDecoder) hufLiterals(b []byte, regen int, four bool) ([]byte, error) {
	all := d.litBuf(regen)
	out := all
	if !four {
		return out, d.hufStream(b, out)
	}
	if len(b) < 6 {
		return nil, corrupt("a jump table runs past its literals")
	}
	sizes := [4]int{int(binary.LittleEndian.Uint16(b)), int(binary.LittleEndian.Uint16(b[2:])), int(binary.LittleEndian.Uint16(b[4:]))}
	b = b[6:]
	sizes[3] = len(b) - sizes[0] - sizes[1] - sizes[2]
	seg := (regen + 3) / 4
	if sizes[3] < 0 || regen < 3*seg {
		return nil, corrupt("a jump table does not fit its literals")
	}
	for i := 0; i < 4; i++ {
		n := seg
		if i == 3 {
			n = regen - 3*seg
		}
		if err := d.hufStream(b[:sizes[i]], out[:n]); err != nil {
			return nil, err
		}
		b, out = b[sizes[i]:], out[n:]
	}
	return all, nil
}
