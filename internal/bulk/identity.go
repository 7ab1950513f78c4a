package bulk

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// identifier gives rows their journal key and derived reference_id one at
// a time, in input order (see rowIdentity): what it keeps is a count per
// distinct row content, by a 128-bit hash of the content, in a flat table.
type identifier struct {
	prefix string
	seen   pairTable
}

// next is the key and derived reference_id of row, the next row of the
// input.
func (id *identifier) next(r Row) (key, ref string) {
	content := rowContent(r)
	sum := sha256.Sum256([]byte(content))
	h := [2]uint64{binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16])}
	count := id.seen.get(h) + 1
	id.seen.put(h, count)
	ordinal := strconv.FormatUint(uint64(count), 10)
	keyed := content + "\x1f" + ordinal
	// The default prefix named (--reference-prefix bnpl) derives the
	// default run's reference_ids: the same moves, so the same keys.
	if id.prefix != "" && id.prefix != DefaultReferencePrefix && r.ReferenceID == "" {
		keyed += "\x1f" + id.prefix
	}
	k := sha256.Sum256([]byte(keyed))
	key = hex.EncodeToString(k[:16])
	if r.ReferenceID == "" && r.Op != OpClose {
		ref = derivedReference(id.prefix, content, int(count))
	}
	return key, ref
}

// pairTable maps 128-bit hashes to 32-bit counts in flat slices, open
// addressing with linear probing: 20 bytes a slot, at most 3/4 full, and
// nothing for the garbage collector to scan. The all-zero key marks an
// empty slot; a hash that is all zero is stored as {0, 1}.
type pairTable struct {
	keys [][2]uint64
	vals []uint32
	n    int
}

func (t *pairTable) slot(key [2]uint64) (int, [2]uint64) {
	if key == [2]uint64{} {
		key[1] = 1
	}
	mask := len(t.keys) - 1
	i := int(key[0]*0x9e3779b97f4a7c15>>32) & mask
	for t.keys[i] != [2]uint64{} && t.keys[i] != key {
		i = (i + 1) & mask
	}
	return i, key
}

// get is the value of key, 0 when absent.
func (t *pairTable) get(key [2]uint64) uint32 {
	if t.n == 0 {
		return 0
	}
	i, k := t.slot(key)
	if t.keys[i] != k {
		return 0
	}
	return t.vals[i]
}

func (t *pairTable) put(key [2]uint64, val uint32) {
	if (t.n+1)*4 > len(t.keys)*3 {
		keys, vals := t.keys, t.vals
		size := max(2*len(keys), 1024)
		t.keys, t.vals, t.n = make([][2]uint64, size), make([]uint32, size), 0
		for i, k := range keys {
			if k != [2]uint64{} {
				t.put(k, vals[i])
			}
		}
	}
	i, k := t.slot(key)
	if t.keys[i] == [2]uint64{} {
		t.n++
	}
	t.keys[i], t.vals[i] = k, val
}

// DefaultReferencePrefix starts the reference_id derived for a row that
// has none; see rowIdentity.
const DefaultReferencePrefix = "bnpl"

// rowIdentity gives every row its journal key and, for a capture or refund
// row without a reference_id, the reference_id it is sent with.
//
// Both are hashes of what identifies the intended move: the op, the
// payment_id, the amount (as a number, so 100.0 and 100.00 agree; "full"
// as written), the row's reference_id, tax, shipping and discount amounts,
// reason, and how many identical rows came before it in the input (so two
// identical rows stay two moves). The line is not part of them: inserting
// or moving other rows changes nothing.
//
// The derived reference_id is PREFIX-H, H the first 24 hex digits of the
// SHA-256 of that content. Any run of the same file, concurrent or later,
// even with its journal deleted, sends the same reference_id for a row,
// and the service does not apply a reference_id twice. prefix is
// Options.ReferencePrefix: empty means DefaultReferencePrefix (and so does
// DefaultReferencePrefix named), and another prefix (a deliberate second
// run of the same file) also makes new journal keys, so the same journal
// does not take that run's rows for done.
func rowIdentity(prefix string, rows []Row) (keys, refs []string) {
	keys = make([]string, len(rows))
	refs = make([]string, len(rows))
	id := identifier{prefix: prefix}
	for i, r := range rows {
		keys[i], refs[i] = id.next(r)
	}
	return keys, refs
}

// rowContent is what identifies a row's move, for rowIdentity.
func rowContent(r Row) string {
	return strings.Join([]string{
		string(r.Op), r.PaymentID, canonicalAmount(r.Amount), r.ReferenceID,
		canonicalAmount(r.TaxAmount), canonicalAmount(r.ShippingAmount), canonicalAmount(r.DiscountAmount), r.Reason,
	}, "\x1f")
}

// derivedReference is the reference_id of the ordinal-th row of content
// (see rowIdentity).
func derivedReference(prefix, content string, ordinal int) string {
	ref := sha256.Sum256([]byte("reference_id\x1f" + content + "\x1f" + strconv.Itoa(ordinal)))
	if prefix == "" {
		prefix = DefaultReferencePrefix
	}
	return prefix + "-" + hex.EncodeToString(ref[:12])
}

// CheckReferencePrefix says what is wrong with a --reference-prefix, or "".
func CheckReferencePrefix(p string) string {
	if p == "" || len(p) > maxReferencePrefix {
		return fmt.Sprintf("must be 1 to %d characters", maxReferencePrefix)
	}
	for _, c := range p {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fmt.Sprintf("%q may hold only letters, digits, '-', '_' and '.'", p)
		}
	}
	return ""
}

const maxReferencePrefix = 32

func canonicalAmount(s string) string {
	if d, err := decimal.NewFromString(s); err == nil {
		return d.String()
	}
	return s
}
