package bulk

import (
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
)

// An input is known, across its copies, renames, re-encodings and edits,
// by what its rows mean: the identities of its moves (see rowIdentity).
// A run keeps of them a sketch, the sketchSize smallest (as numbers, the
// first 8 bytes of each row's key), recorded with the run in the ledger:
// an input of at most sketchSize rows is its sketch whole, and two inputs
// that share most of their rows share most of their sketches (a bottom-k
// sketch: the share of the union's smallest that both hold estimates the
// share of the rows both hold).
const sketchSize = 128

// Two inputs are one, edited, when at least half of their rows (of the
// union of both) are the same: a file of five rows with one amount edited
// shares four of six, one of three rows edited two of four.

// InputIdentity gathers an input's sketch from its rows, in input order.
type InputIdentity struct {
	op  Op
	id  identifier
	min []uint64 // sorted, at most sketchSize
}

// NewInputIdentity is the identity of an input of a run of op whose rows
// without a reference_id take prefix (see Options.ReferencePrefix).
func NewInputIdentity(op Op, prefix string) *InputIdentity {
	return &InputIdentity{op: op, id: identifier{prefix: prefix}}
}

// Add takes the next row of the input.
func (in *InputIdentity) Add(r Row) {
	if r.Op == "" && in.op.valid() {
		r.Op = in.op
	}
	key, _ := in.id.next(r)
	in.addKey(key)
}

func (in *InputIdentity) addKey(key string) {
	b, err := hex.DecodeString(key)
	if err != nil || len(b) < 8 {
		return
	}
	in.min = sketchAdd(in.min, binary.BigEndian.Uint64(b[:8]))
}

// sketchAdd puts v among the smallest of s, sorted, if it is one of them.
func sketchAdd(s []uint64, v uint64) []uint64 {
	i, found := slices.BinarySearch(s, v)
	if found || (len(s) == sketchSize && i == len(s)) {
		return s
	}
	s = slices.Insert(s, i, v)
	if len(s) > sketchSize {
		s = s[:sketchSize]
	}
	return s
}

// String is the sketch as the ledger records it.
func (in *InputIdentity) String() string {
	if in == nil {
		return ""
	}
	return formatSketch(in.min)
}

func formatSketch(s []uint64) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = strconv.FormatUint(v, 16)
	}
	return strings.Join(parts, ",")
}

func parseSketch(text string) []uint64 {
	if text == "" {
		return nil
	}
	var s []uint64
	for _, p := range strings.Split(text, ",") {
		if v, err := strconv.ParseUint(p, 16, 64); err == nil {
			s = append(s, v)
		}
	}
	slices.Sort(s)
	return s
}

// sameInput reports whether sketches a and b are of one input, edited or
// not: both hold at least half of the smallest of their union.
func sameInput(a, b []uint64) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	union := append(slices.Clone(a), b...)
	slices.Sort(union)
	union = slices.Compact(union)
	if len(union) > sketchSize {
		union = union[:sketchSize]
	}
	both := 0
	for _, v := range union {
		_, inA := slices.BinarySearch(a, v)
		_, inB := slices.BinarySearch(b, v)
		if inA && inB {
			both++
		}
	}
	return 2*both >= len(union)
}
