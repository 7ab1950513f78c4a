package zstd

import (
	"encoding/binary"
	"math/bits"
)

// fwdBits reads a forward bit stream: the bits of each byte from the least
// significant up, the bytes in order. FSE table descriptions are written
// so. Bits past the end read as zero and are counted in past.
type fwdBits struct {
	b   []byte
	pos int // bits read so far
}

// peek returns the next n bits (n at most 24) without taking them.
func (r *fwdBits) peek(n uint) uint32 {
	var v uint32
	at := r.pos >> 3
	for i := 0; i < 4 && at+i < len(r.b); i++ {
		v |= uint32(r.b[at+i]) << (8 * i)
	}
	return (v >> (r.pos & 7)) & (1<<n - 1)
}

func (r *fwdBits) skip(n uint) { r.pos += int(n) }

func (r *fwdBits) read(n uint) uint32 {
	v := r.peek(n)
	r.skip(n)
	return v
}

// past tells whether more bits were read than the stream holds.
func (r *fwdBits) past() bool { return r.pos > 8*len(r.b) }

// backBits reads a backward bit stream, as Huffman-coded literals and FSE
// streams are written: the stream is a little-endian number whose highest
// set bit marks its end, read from that mark down. Bits read past the
// start of the stream read as zero and are counted in over, which callers
// treat as corruption.
type backBits struct {
	b    []byte
	off  int    // b[:off] is not loaded yet
	val  uint64 // the loaded bits not yet read are its low n bits
	n    uint
	over uint // bits read past the start of the stream
}

func (r *backBits) init(b []byte) error {
	if len(b) == 0 {
		return corrupt("an empty bit stream")
	}
	last := b[len(b)-1]
	if last == 0 {
		return corrupt("a bit stream without its end mark")
	}
	*r = backBits{b: b, off: len(b) - 1, val: uint64(last), n: uint(bits.Len8(last)) - 1}
	return nil
}

// fill loads whole bytes while they fit in val.
func (r *backBits) fill() {
	if r.off >= 8 {
		k := (63 - r.n) >> 3 // bytes that fit
		w := binary.LittleEndian.Uint64(r.b[r.off-8 : r.off])
		r.val = r.val<<(8*k) | w>>(64-8*k)
		r.off -= int(k)
		r.n += 8 * k
		return
	}
	for r.n <= 56 && r.off > 0 {
		r.off--
		r.val = r.val<<8 | uint64(r.b[r.off])
		r.n += 8
	}
}

// read takes the next n bits (n at most 56).
func (r *backBits) read(n uint) uint64 {
	if n == 0 {
		return 0
	}
	if r.n < n {
		r.fill()
		if r.n < n {
			r.val <<= n - r.n
			r.over += n - r.n
			r.n = n
		}
	}
	r.n -= n
	return (r.val >> r.n) & (1<<n - 1)
}

// ensure makes sure the next n bits (n at most 56) are loaded, so that
// take can read them; bits past the start of the stream read as zero and
// count as read past it.
func (r *backBits) ensure(n uint) {
	if r.n < n {
		r.load(n)
	}
}

func (r *backBits) load(n uint) {
	r.fill()
	if r.n < n {
		r.val <<= n - r.n
		r.over += n - r.n
		r.n = n
	}
}

// take reads n bits that ensure loaded.
func (r *backBits) take(n uint) uint64 {
	r.n -= n
	return (r.val >> r.n) & (1<<n - 1)
}

// peek returns the next n bits (n at most 56) without taking them; past
// the start of the stream it gives zeros.
func (r *backBits) peek(n uint) uint64 {
	if r.n < n {
		r.fill()
		if r.n < n {
			return (r.val << (n - r.n)) & (1<<n - 1)
		}
	}
	return (r.val >> (r.n - n)) & (1<<n - 1)
}

// skip takes n bits after a peek of at least n.
func (r *backBits) skip(n uint) {
	if n > r.n {
		r.over += n - r.n
		r.n = 0
		return
	}
	r.n -= n
}

// done tells whether every bit was read, and none past the start.
func (r *backBits) done() bool { return r.off == 0 && r.n == 0 && r.over == 0 }
