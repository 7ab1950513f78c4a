// Package zstd decodes Zstandard data (RFC 8878) as it is read: frames and
// skippable frames, raw, run-length and compressed blocks, and the
// optional content checksum. It does not compress, and refuses frames
// that need a dictionary.
//
// Memory is bounded by the frame's window, which the caller caps: a frame
// asking for more is refused before anything is decoded. Decoding is
// pulled by Read, one block (at most 128 KiB) at a time, so a caller that
// stops reading at a limit gets no more than one block past it decoded.
package zstd

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

var (
	// ErrCorrupt is wrapped by every error about data that is not valid zstd.
	ErrCorrupt = errors.New("zstd: invalid data")
	// ErrDictionary is a frame that needs a dictionary.
	ErrDictionary = errors.New("zstd: the frame needs a dictionary, which is not supported")
	// ErrWindow is a frame whose window is larger than the reader allows.
	ErrWindow = errors.New("zstd: the frame's window is too large")
	// ErrChecksum is a frame whose content does not match its checksum.
	ErrChecksum = errors.New("zstd: the content does not match the frame's checksum")
)

func corrupt(what string) error { return fmt.Errorf("%w: %s", ErrCorrupt, what) }

const (
	frameMagic     = 0xFD2FB528
	skippableMagic = 0x184D2A50 // and the 15 values above it
	maxBlock       = 128 << 10
)

// frameDecoder holds what one frame's blocks share: the history matches
// copy from, the repeat offsets and the tables later blocks may reuse.
type frameDecoder struct {
	window, blockMax int
	size             uint64 // the frame's declared content size, or noSize
	hist             []byte // the frame's output, of which at least the last window bytes
	blockStart       int    // where in hist the current block's output starts
	rep              [3]uint64

	huf         []hufEntry
	hufBits     uint
	hasHuf      bool
	weightTable fseTable
	seq         [3]fseTable
	seqOK       [3]bool
	litMem      []byte
}

// start sets the decoder up for a new frame.
func (d *frameDecoder) start(window int, size uint64) {
	d.window, d.size = window, size
	d.blockMax = min(window, maxBlock)
	d.hist = d.hist[:0]
	d.rep = [3]uint64{1, 4, 8}
	d.hasHuf = false
	d.seqOK = [3]bool{}
}

// reserve makes room in hist for one more block, dropping what lies
// beyond the window.
func (d *frameDecoder) reserve() {
	if len(d.hist)+d.blockMax <= cap(d.hist) {
		d.blockStart = len(d.hist)
		return
	}
	keep := d.hist
	if len(keep) > d.window {
		keep = keep[len(keep)-d.window:]
	}
	if len(keep)+d.blockMax <= cap(d.hist) {
		d.hist = d.hist[:copy(d.hist, keep)]
	} else {
		// Twice the window, so that dropping what is out of reach
		// copies each byte once; no more than a frame of known size
		// can fill.
		limit := 2*d.window + d.blockMax
		if d.size < uint64(limit) {
			limit = int(d.size) + d.blockMax
		}
		c := max(min(2*cap(d.hist), limit), len(keep)+d.blockMax)
		h := make([]byte, len(keep), c)
		copy(h, keep)
		d.hist = h
	}
	d.blockStart = len(d.hist)
}

// emit appends literals to the block's output.
func (d *frameDecoder) emit(b []byte) error {
	if len(d.hist)-d.blockStart+len(b) > d.blockMax {
		return corrupt("a block decodes to more than a block may hold")
	}
	d.hist = append(d.hist, b...)
	return nil
}

// Reader decodes a zstd stream read from another reader.
type Reader struct {
	src       io.Reader
	maxWindow uint64
	d         frameDecoder
	sum       xxh64

	inFrame  bool
	last     bool   // the frame's last block is decoded
	checked  bool   // the frame has a content checksum
	size     uint64 // the frame's declared content size, or noSize
	produced uint64 // bytes the frame has given
	pending  []byte // decoded bytes not yet read
	buf      []byte // one compressed block
	err      error
}

const noSize = ^uint64(0)

// NewReader decodes the zstd stream read from r, refusing any frame whose
// window is over maxWindow bytes.
func NewReader(r io.Reader, maxWindow int) *Reader {
	return &Reader{src: r, maxWindow: uint64(max(maxWindow, 0))}
}

// Read gives decoded bytes. At the end of the stream it returns io.EOF;
// a stream that stops inside a frame is io.ErrUnexpectedEOF, and data
// that is not valid zstd an error wrapping ErrCorrupt (or ErrDictionary,
// ErrWindow, ErrChecksum).
func (z *Reader) Read(p []byte) (int, error) {
	for len(z.pending) == 0 {
		if z.err != nil {
			return 0, z.err
		}
		z.err = z.step()
	}
	n := copy(p, z.pending)
	z.pending = z.pending[n:]
	return n, nil
}

// step decodes the next block, or ends the frame, or starts the next one.
func (z *Reader) step() error {
	switch {
	case !z.inFrame:
		return z.startFrame()
	case z.last:
		return z.endFrame()
	}
	return z.block()
}

// readFull reads len(b) bytes inside a frame, where an end is unexpected.
func (z *Reader) readFull(b []byte) error {
	if _, err := io.ReadFull(z.src, b); err != nil {
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		return err
	}
	return nil
}

// startFrame reads a frame's magic number and header, skipping skippable
// frames.
func (z *Reader) startFrame() error {
	var m [4]byte
	if n, err := io.ReadFull(z.src, m[:]); err != nil {
		if err == io.ErrUnexpectedEOF && !magicStart(m[:n]) {
			return corrupt("not a zstd frame")
		}
		return err // io.EOF between frames is the end of the stream
	}
	magic := binary.LittleEndian.Uint32(m[:])
	if magic&^0xF == skippableMagic {
		if err := z.readFull(m[:]); err != nil {
			return err
		}
		n := int64(binary.LittleEndian.Uint32(m[:]))
		if c, err := io.CopyN(io.Discard, z.src, n); c != n {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		return nil
	}
	if magic != frameMagic {
		return corrupt("not a zstd frame")
	}
	return z.header()
}

// magicStart tells whether b, a stream's last few bytes, could be the
// start of a frame cut short: else they are not zstd at all.
func magicStart(b []byte) bool {
	var frame, skip [4]byte
	binary.LittleEndian.PutUint32(frame[:], frameMagic)
	binary.LittleEndian.PutUint32(skip[:], skippableMagic)
	if len(b) > 0 {
		// The skippable magic numbers differ in their first byte's low half.
		skip[0] |= b[0] & 0xF
	}
	return bytes.HasPrefix(frame[:], b) || bytes.HasPrefix(skip[:], b)
}
