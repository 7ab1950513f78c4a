package zstd

import (
	"encoding/binary"
	"fmt"
)

// header reads a frame header (RFC 8878, 3.1.1.1) and sets up the frame.
func (z *Reader) header() error {
	var h [14]byte
	if err := z.readFull(h[:1]); err != nil {
		return err
	}
	fhd := h[0]
	if fhd&0x08 != 0 {
		return corrupt("a frame header with its reserved bit set")
	}
	single := fhd&0x20 != 0
	fcsLen := [...]int{0, 2, 4, 8}[fhd>>6]
	if single && fcsLen == 0 {
		fcsLen = 1
	}
	dictLen := [...]int{0, 1, 2, 4}[fhd&3]
	wdLen := 1
	if single {
		wdLen = 0
	}
	b := h[1 : 1+wdLen+dictLen+fcsLen]
	if err := z.readFull(b); err != nil {
		return err
	}
	var window uint64
	if !single {
		exp, mant := uint64(b[0]>>3), uint64(b[0]&7)
		base := uint64(1) << (10 + exp)
		window = base + base/8*mant
	}
	if dict := leUint(b[wdLen : wdLen+dictLen]); dict != 0 {
		return ErrDictionary
	}
	z.size = noSize
	if fcsLen > 0 {
		z.size = leUint(b[wdLen+dictLen:])
		if fcsLen == 2 {
			z.size += 256
		}
	}
	if single {
		window = z.size
	}
	if window > z.maxWindow {
		return fmt.Errorf("%w: %d bytes, over the %d allowed", ErrWindow, window, z.maxWindow)
	}
	z.d.start(int(window), z.size)
	z.inFrame, z.last, z.checked, z.produced = true, false, fhd&0x04 != 0, 0
	if z.checked {
		z.sum.reset()
	}
	return nil
}

func leUint(b []byte) uint64 {
	var v uint64
	for i, c := range b {
		v |= uint64(c) << (8 * i)
	}
	return v
}

// block decodes the next block of the frame (RFC 8878, 3.1.1.2).
func (z *Reader) block() error {
	var h [3]byte
	if err := z.readFull(h[:]); err != nil {
		return err
	}
	bh := uint32(h[0]) | uint32(h[1])<<8 | uint32(h[2])<<16
	z.last = bh&1 != 0
	kind, size := bh>>1&3, int(bh>>3)
	d := &z.d
	if size > d.blockMax || kind == 3 {
		return corrupt("a block over its frame's block size, or of the reserved type")
	}
	d.reserve()
	switch kind {
	case 0:
		at := len(d.hist)
		d.hist = d.hist[:at+size]
		if err := z.readFull(d.hist[at:]); err != nil {
			return err
		}
	case 1:
		if err := z.readFull(h[:1]); err != nil {
			return err
		}
		at := len(d.hist)
		d.hist = d.hist[:at+size]
		for i := at; i < len(d.hist); i++ {
			d.hist[i] = h[0]
		}
	default:
		if cap(z.buf) < size {
			z.buf = make([]byte, size, d.blockMax)
		}
		z.buf = z.buf[:size]
		if err := z.readFull(z.buf); err != nil {
			return err
		}
		if err := d.compressedBlock(z.buf); err != nil {
			return err
		}
	}
	return z.give(d.hist[d.blockStart:])
}

// give hands a decoded block to the reader, counting it against the
// frame's declared size and adding it to the checksum.
func (z *Reader) give(out []byte) error {
	z.produced += uint64(len(out))
	if z.size != noSize && z.produced > z.size {
		return corrupt("a frame decodes to more than its declared size")
	}
	if z.checked {
		z.sum.write(out)
	}
	z.pending = out
	return nil
}

// endFrame checks the frame's size and checksum once its last block is read.
func (z *Reader) endFrame() error {
	if z.size != noSize && z.produced != z.size {
		return corrupt("a frame decodes to less than its declared size")
	}
	if z.checked {
		var c [4]byte
		if err := z.readFull(c[:]); err != nil {
			return err
		}
		if binary.LittleEndian.Uint32(c[:]) != uint32(z.sum.sum()) {
			return ErrChecksum
		}
	}
	z.inFrame = false
	return nil
}
