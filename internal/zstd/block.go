package zstd

// The compressed block (RFC 8878, 3.1.1.3): a literals section, then a
// sequences section that says how to interleave the literals with copies
// of what came before.

// compressedBlock decodes one compressed block onto the history.
func (d *frameDecoder) compressedBlock(b []byte) error {
	lits, n, err := d.literals(b)
	if err != nil {
		return err
	}
	return d.sequences(b[n:], lits)
}

// literals reads a literals section from the start of b, returning the
// literals and the bytes the section took.
func (d *frameDecoder) literals(b []byte) ([]byte, int, error) {
	if len(b) == 0 {
		return nil, 0, corrupt("a compressed block without its literals")
	}
	kind, format := b[0]&3, b[0]>>2&3
	if kind < 2 {
		return d.plainLiterals(b, kind, format)
	}
	hl := [...]int{3, 3, 4, 5}[format]
	field := [...]uint{10, 10, 14, 18}[format]
	if len(b) < hl {
		return nil, 0, corrupt("a literals header runs past its block")
	}
	var v uint64
	for i := 0; i < hl; i++ {
		v |= uint64(b[i]) << (8 * i)
	}
	regen := int(v>>4) & (1<<field - 1)
	size := int(v>>(4+field)) & (1<<field - 1)
	if regen > d.blockMax || hl+size > len(b) {
		return nil, 0, corrupt("literals larger than their block")
	}
	body := b[hl : hl+size]
	if kind == 2 {
		n, err := d.readHuffman(body)
		if err != nil {
			return nil, 0, err
		}
		body = body[n:]
	} else if !d.hasHuf {
		return nil, 0, corrupt("literals that reuse a Huffman tree before any was given")
	}
	out, err := d.hufLiterals(body, regen, format != 0)
	return out, hl + size, err
}

// plainLiterals reads raw (kind 0) or run-length (kind 1) literals.
func (d *frameDecoder) plainLiterals(b []byte, kind, format byte) ([]byte, int, error) {
	var regen, hl int
	switch format {
	case 1:
		hl = 2
	case 3:
		hl = 3
	default:
		hl = 1
	}
	if len(b) < hl {
		return nil, 0, corrupt("a literals header runs past its block")
	}
	switch hl {
	case 1:
		regen = int(b[0] >> 3)
	case 2:
		regen = int(b[0]>>4) | int(b[1])<<4
	default:
		regen = int(b[0]>>4) | int(b[1])<<4 | int(b[2])<<12
	}
	if regen > d.blockMax {
		return nil, 0, corrupt("literals larger than their block")
	}
	if kind == 0 {
		if hl+regen > len(b) {
			return nil, 0, corrupt("raw literals run past their block")
		}
		return b[hl : hl+regen], hl + regen, nil
	}
	if hl+1 > len(b) {
		return nil, 0, corrupt("run-length literals without their byte")
	}
	out := d.litBuf(regen)
	for i := range out {
		out[i] = b[hl]
	}
	return out, hl + 1, nil
}

// litBuf gives a buffer for n decoded literals.
func (d *frameDecoder) litBuf(n int) []byte {
	if cap(d.litMem) < n {
		d.litMem = make([]byte, n)
	}
	return d.litMem[:n]
}
