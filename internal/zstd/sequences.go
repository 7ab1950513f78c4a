package zstd

// seqKind describes one of the three codes of a sequence: literal
// lengths, offsets and match lengths (RFC 8878, 3.1.1.3.2.1).
type seqKind struct {
	maxSym int
	maxLog uint
	predef []int16
	preLog uint
}

var seqKinds = [3]seqKind{
	{35, 9, llDefault[:], 6},
	{31, 8, ofDefault[:], 5},
	{52, 9, mlDefault[:], 6},
}

// The predefined distributions (RFC 8878, 3.1.1.3.2.2).
var (
	llDefault = [36]int16{4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1,
		2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1}
	mlDefault = [53]int16{1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1}
	ofDefault = [29]int16{1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1}
)

// Literal length and match length codes: a base and extra bits to add.
var (
	llBase = [36]uint32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
		16, 18, 20, 22, 24, 28, 32, 40, 48, 64, 128, 256, 512, 1024, 2048, 4096,
		8192, 16384, 32768, 65536}
	llExtra = [36]uint8{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	mlBase = [53]uint32{3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
		19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34,
		35, 37, 39, 41, 43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027, 2051,
		4099, 8195, 16387, 32771, 65539}
	mlExtra = [53]uint8{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11,
		12, 13, 14, 15, 16}
)

// sequences reads a sequences section and carries it out with lits.
func (d *frameDecoder) sequences(b []byte, lits []byte) error {
	nseq, n, err := seqCount(b)
	if err != nil {
		return err
	}
	b = b[n:]
	if nseq == 0 {
		if len(b) != 0 {
			return corrupt("bytes after an empty sequences section")
		}
		return d.emit(lits)
	}
	if len(b) == 0 || b[0]&3 != 0 {
		return corrupt("a sequences section without valid compression modes")
	}
	modes := b[0]
	b = b[1:]
	for i := range seqKinds {
		n, err := d.seqTable(i, modes>>(6-2*i)&3, b)
		if err != nil {
			return err
		}
		b = b[n:]
	}
	var br backBits
	if err := br.init(b); err != nil {
		return err
	}
	return d.execute(&br, nseq, lits)
}

// seqCount reads the number of sequences and the bytes it took.
func seqCount(b []byte) (int, int, error) {
	switch {
	case len(b) == 0:
		return 0, 0, corrupt("a compressed block without its sequences section")
	case b[0] < 128:
		return int(b[0]), 1, nil
	case b[0] < 255 && len(b) >= 2:
		return int(b[0]-128)<<8 | int(b[1]), 2, nil
	case b[0] == 255 && len(b) >= 3:
		return int(b[1]) | int(b[2])<<8 + 0x7f00, 3, nil
	}
	return 0, 0, corrupt("a sequence count runs past its block")
}

// seqTable sets up the decoding table of one code from its mode:
// predefined, run-length, FSE-described or repeated from the last block.
func (d *frameDecoder) seqTable(i int, mode byte, b []byte) (int, error) {
	k, t := &seqKinds[i], &d.seq[i]
	switch mode {
	case 0:
		d.seqOK[i] = true
		return 0, t.build(k.predef, k.preLog)
	case 1:
		if len(b) == 0 || int(b[0]) > k.maxSym {
			return 0, corrupt("a run-length sequence code that is missing or out of range")
		}
		t.rle(b[0])
		d.seqOK[i] = true
		return 1, nil
	case 2:
		var norm [64]int16
		nsym, log, used, err := readDist(b, k.maxSym, k.maxLog, norm[:])
		if err != nil {
			return 0, err
		}
		d.seqOK[i] = false
		if err := t.build(norm[:nsym], log); err != nil {
			return 0, err
		}
		d.seqOK[i] = true
		return used, nil
	}
	if !d.seqOK[i] {
		return 0, corrupt("a sequence table repeated before any was given")
	}
	return 0, nil
}

// execute decodes nseq sequences from br and carries each out: so many
// literals, then a match. The block's output is checked against its
// bound before anything is copied, so the copies stay within hist's
// capacity, which reserve made.
func (d *frameDecoder) execute(br *backBits, nseq int, lits []byte) error {
	ll, of, ml := &d.seq[0], &d.seq[1], &d.seq[2]
	sl, so, sm := br.read(ll.log), br.read(of.log), br.read(ml.log)
	h, limit, window := d.hist, uint64(d.blockStart+d.blockMax), uint64(d.window)
	for i := 0; i < nseq; i++ {
		el, eo, em := ll.e[sl], of.e[so], ml.e[sm]
		oc, mb, lb := uint(eo.sym), uint(mlExtra[em.sym]), uint(llExtra[el.sym])
		// At most 31+16 bits, then 16+9+9+8: each fits one load.
		br.ensure(oc + mb)
		ofv := uint64(1)<<oc + br.take(oc)
		mlen := uint64(mlBase[em.sym]) + br.take(mb)
		if i+1 < nseq {
			br.ensure(lb + uint(el.bits) + uint(em.bits) + uint(eo.bits))
		} else {
			br.ensure(lb)
		}
		llen := uint64(llBase[el.sym]) + br.take(lb)
		if i+1 < nseq {
			sl = uint64(el.base) + br.take(uint(el.bits))
			sm = uint64(em.base) + br.take(uint(em.bits))
			so = uint64(eo.base) + br.take(uint(eo.bits))
		}
		if br.over > 0 {
			return corrupt("a sequences stream ends before its sequences")
		}
		off := ofv - 3
		if ofv <= 3 {
			var err error
			if off, err = d.offset(ofv, llen); err != nil {
				return err
			}
		} else {
			d.rep = [3]uint64{off, d.rep[0], d.rep[1]}
		}
		if llen > uint64(len(lits)) || uint64(len(h))+llen+mlen > limit {
			return corrupt("a sequence takes more literals than there are, or overflows its block")
		}
		h = append(h, lits[:llen]...)
		lits = lits[llen:]
		if off > uint64(len(h)) || off > window {
			return corrupt("a match reaches back past the window")
		}
		at, end := len(h), len(h)+int(mlen)
		from := at - int(off)
		h = h[:end]
		for at < end {
			at += copy(h[at:end], h[from:at])
		}
	}
	d.hist = h
	if !br.done() {
		return corrupt("a sequences stream does not end with its sequences")
	}
	return d.emit(lits)
}

// offset turns an offset value into a distance, keeping the three
// repeat offsets (RFC 8878, 3.1.2.5).
func (d *frameDecoder) offset(v, llen uint64) (uint64, error) {
	if v > 3 {
		d.rep = [3]uint64{v - 3, d.rep[0], d.rep[1]}
		return v - 3, nil
	}
	i := v - 1
	if llen == 0 {
		i++
	}
	var o uint64
	switch i {
	case 0:
		return d.rep[0], nil
	case 1:
		o = d.rep[1]
		d.rep[1] = d.rep[0]
		d.rep[0] = o
		return o, nil
	case 2:
		o = d.rep[2]
	default:
		o = d.rep[0] - 1
		if o == 0 {
			return 0, corrupt("a repeat offset of zero")
		}
	}
	d.rep = [3]uint64{o, d.rep[0], d.rep[1]}
	return o, nil
}
