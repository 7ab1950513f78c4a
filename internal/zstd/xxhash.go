package zstd

import (
	"encoding/binary"
	"math/bits"
)

// xxh64 is XXH64 with seed 0, the hash whose low 32 bits a frame's content
// checksum holds, computed as the content is decoded.
type xxh64 struct {
	v     [4]uint64
	buf   [32]byte
	nbuf  int
	total uint64
}

const (
	prime1 uint64 = 11400714785074694791
	prime2 uint64 = 14029467366897019727
	prime3 uint64 = 1609587929392839161
	prime4 uint64 = 9650029242287828579
	prime5 uint64 = 2870177450012600261
)

func (x *xxh64) reset() {
	*x = xxh64{}
	p1, p2 := prime1, prime2 // variables: the sums wrap, as XXH64 means them to
	x.v = [4]uint64{p1 + p2, p2, 0, -p1}
}

func xxRound(acc, in uint64) uint64 {
	return bits.RotateLeft64(acc+in*prime2, 31) * prime1
}

// stripes mixes whole 32-byte stripes of b and returns how many bytes it took.
func (x *xxh64) stripes(b []byte) int {
	n := 0
	for ; len(b)-n >= 32; n += 32 {
		s := b[n : n+32]
		x.v[0] = xxRound(x.v[0], binary.LittleEndian.Uint64(s[0:]))
		x.v[1] = xxRound(x.v[1], binary.LittleEndian.Uint64(s[8:]))
		x.v[2] = xxRound(x.v[2], binary.LittleEndian.Uint64(s[16:]))
		x.v[3] = xxRound(x.v[3], binary.LittleEndian.Uint64(s[24:]))
	}
	return n
}

func (x *xxh64) write(b []byte) {
	x.total += uint64(len(b))
	if x.nbuf > 0 {
		c := copy(x.buf[x.nbuf:], b)
		x.nbuf += c
		b = b[c:]
		if x.nbuf < 32 {
			return
		}
		x.stripes(x.buf[:])
		x.nbuf = 0
	}
	n := x.stripes(b)
	x.nbuf = copy(x.buf[:], b[n:])
}

func (x *xxh64) sum() uint64 {
	var h uint64
	if x.total >= 32 {
		v := x.v
		h = bits.RotateLeft64(v[0], 1) + bits.RotateLeft64(v[1], 7) +
			bits.RotateLeft64(v[2], 12) + bits.RotateLeft64(v[3], 18)
		for _, lane := range v {
			h ^= xxRound(0, lane)
			h = h*prime1 + prime4
		}
	} else {
		h = prime5
	}
	h += x.total
	b := x.buf[:x.nbuf]
	for ; len(b) >= 8; b = b[8:] {
		h ^= xxRound(0, binary.LittleEndian.Uint64(b))
		h = bits.RotateLeft64(h, 27)*prime1 + prime4
	}
	if len(b) >= 4 {
		h ^= uint64(binary.LittleEndian.Uint32(b)) * prime1
		h = bits.RotateLeft64(h, 23)*prime2 + prime3
		b = b[4:]
	}
	for _, c := range b {
		h ^= uint64(c) * prime5
		h = bits.RotateLeft64(h, 11) * prime1
	}
	h ^= h >> 33
	h *= prime2
	h ^= h >> 29
	h *= prime3
	h ^= h >> 32
	return h
}
